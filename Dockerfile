# One image for the api, worker and migrate roles (docker-compose.yml picks the command).
# The build stage makes the wheel; the runtime stage installs it, so the image holds one copy of the
# code (in site-packages, with alembic.ini and the migrations) and no source tree.
FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1
WORKDIR /build
COPY pyproject.toml requirements.lock README.md ./
COPY src ./src
RUN pip wheel --no-deps --wheel-dir /wheels .

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
COPY requirements.lock /tmp/requirements.lock
COPY --from=build /wheels /tmp/wheels
RUN pip install --upgrade pip \
 && pip install -c /tmp/requirements.lock /tmp/wheels/*.whl \
 && rm -rf /tmp/wheels /tmp/requirements.lock \
 && useradd --create-home switchboard
USER switchboard
WORKDIR /home/switchboard

EXPOSE 8000
ENTRYPOINT ["switchboard"]
CMD ["api", "--host", "0.0.0.0", "--port", "8000"]
