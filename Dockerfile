# One image for the api, worker and migrate roles (docker-compose.yml picks the command).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app

COPY pyproject.toml requirements.lock README.md ./
COPY . .
RUN pip install --upgrade pip && pip install -c requirements.lock . && useradd --create-home switchboard
USER switchboard

EXPOSE 8000
ENTRYPOINT ["switchboard"]
CMD ["api", "--host", "0.0.0.0", "--port", "8000"]
