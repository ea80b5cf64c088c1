"""CPU per workflow run in the worker's sandbox, beside Temporal's own sandbox and no sandbox at all.

Replays the recorded histories of the three workflows every message runs (SendMessage answered first
time, ProcessInbound of one text message, a DeliverWebhook retried then settled) many times on one
replayer per runner, and prints the CPU each run costs:

- no sandbox (`UnsandboxedWorkflowRunner`): the baseline, what the workflow code itself costs;
- Temporal's `SandboxedWorkflowRunner` with the worker's restrictions;
- the worker's runner (`switchboard.workflow_sandbox.DirectContextSandbox`), which reads each
  payload's serialization context without re-entering the sandbox (docs/decisions/0002-workflow-sandbox-cost.md);
- the worker as deployed: its runner, with SendMessage and DeliverWebhook outside the sandbox
  (``sandboxed=False``), so only ProcessInbound's run is sandboxed.

The three runner lines run every workflow in the runner named, those defined with ``sandboxed=False``
too (the replayer is given that runner for them as well), so those lines compare like with like.

No server and no database: a replay runs the worker's activation path (decode, activate, encode) on
recorded histories, so the figures isolate the runner. The runners take three turns each, in
alternating order, so a machine that speeds up or slows down during the run shows as a spread, not as
a difference; the best turn is reported, and every turn is printed and recorded.

Run: .venv/bin/python bench/workflow_runner.py [--runs N]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

from harness import compile_bytecode, record_results

HISTORIES = Path(__file__).resolve().parent.parent / "tests" / "workflows" / "histories"
DEPLOYED = "the worker as deployed"
NAMES = ("send_message_sent", "inbound_text_message", "webhook_delivery_retried_then_settled")
TURNS = 3


async def cpu_ms_per_run(runner: object, histories: list[object], runs: int, *, as_deployed: bool) -> float:
    """CPU milliseconds per replayed run, after a warm-up.

    Unless ``as_deployed``, ``runner`` also runs the workflows defined with ``sandboxed=False``.
    """
    from temporalio.contrib.pydantic import pydantic_data_converter
    from temporalio.worker import Replayer, UnsandboxedWorkflowRunner

    from switchboard.workflows.all_workflows import WORKFLOWS

    replayer = Replayer(
        workflows=list(WORKFLOWS),
        data_converter=pydantic_data_converter,
        workflow_runner=runner,
        unsandboxed_workflow_runner=UnsandboxedWorkflowRunner() if as_deployed else runner,
    )

    async def replay(times: int) -> None:
        async def each() -> AsyncIterator[object]:
            for _ in range(times):
                for history in histories:
                    yield history

        results = await replayer.replay_workflows(each(), raise_on_replay_failure=True)
        assert not results.replay_failures

    await replay(5)
    started = time.process_time()
    await replay(runs)
    return (time.process_time() - started) * 1000 / (runs * len(histories))


async def main(runs: int) -> None:
    from temporalio.client import WorkflowHistory
    from temporalio.worker import UnsandboxedWorkflowRunner
    from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner

    from switchboard.worker import SANDBOX

    compile_bytecode()
    histories = [WorkflowHistory.from_json(name, (HISTORIES / f"{name}.json").read_text()) for name in NAMES]
    runners = {
        "no sandbox (baseline)": UnsandboxedWorkflowRunner(),
        "Temporal's sandbox": SandboxedWorkflowRunner(restrictions=SANDBOX.restrictions),
        "the worker's sandbox": SANDBOX,
        DEPLOYED: SANDBOX,
    }
    measured: dict[str, list[float]] = {label: [] for label in runners}
    order = list(runners)
    for turn in range(TURNS):
        # Forward, then backward, and so on: a machine that drifts during the run affects all alike.
        for label in order if turn % 2 == 0 else reversed(order):
            measured[label].append(
                await cpu_ms_per_run(runners[label], histories, runs, as_deployed=label == DEPLOYED)
            )
    best = {label: min(values) for label, values in measured.items()}
    baseline = best["no sandbox (baseline)"]
    print(f"Workflow runs replayed ({', '.join(NAMES)}; {runs} rounds, {TURNS} turns per runner, best shown)")
    for label, values in measured.items():
        spread = ", ".join(f"{value:.2f}" for value in values)
        print(
            f"  {label:<24} {best[label]:6.2f} ms CPU per run   ({spread})   {best[label] / baseline:4.2f}x the baseline"
        )
    saved = 1 - (best["the worker's sandbox"] - baseline) / (best["Temporal's sandbox"] - baseline)
    print(f"  -> the worker's sandbox removes {saved:.0%} of what Temporal's sandbox adds to a run")
    deployed_ratio = best[DEPLOYED] / best["the worker's sandbox"]
    print(
        f"  -> as deployed (SendMessage and DeliverWebhook outside the sandbox) a run costs "
        f"{deployed_ratio:.2f}x what it costs with all three sandboxed"
    )
    record_results(
        "workflow_runner",
        {
            "runs": runs,
            "histories": list(NAMES),
            "cpu_ms_per_run": {label: round(value, 3) for label, value in best.items()},
            "cpu_ms_per_run_each_turn": {
                label: [round(value, 3) for value in values] for label, values in measured.items()
            },
        },
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=150, help="rounds of the three histories per turn")
    asyncio.run(main(parser.parse_args().runs))
