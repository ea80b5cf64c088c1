"""Pure rules of the agent runtime: no I/O, no clock, no settings; time and prices come in as parameters."""
