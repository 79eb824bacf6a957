# neoplan's app as a container image: `docker build -t neoplan .` (compose.yaml builds it for a team).
# Runtime packages only (the pins above "# Tests and tooling" in requirements.txt); runs as a non-root user; the
# embedded SQLite library lives in /data unless NEOPLAN_DATABASE_URL points at a database server.
# The command checks the server's secrets first (python -m neoplan check-server: an example or short secret, an
# [auth] without an allow-list stop the container with one line in its log), then runs Streamlit on port 8501 with
# the secrets file at $NEOPLAN_SECRETS (compose.yaml mounts it there). tests/team_support.py runs this same command
# outside Docker (only the address and port differ) and tests/test_deploy.py checks that they agree.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    NEOPLAN_LIBRARY=/data/scenarios.sqlite \
    NEOPLAN_SECRETS=/run/secrets/streamlit.toml

WORKDIR /app
COPY requirements.txt ./
RUN sed '/^# Tests and tooling/,$d' requirements.txt > runtime-requirements.txt \
    && pip install -r runtime-requirements.txt

COPY app.py ./
COPY .streamlit/config.toml .streamlit/config.toml
COPY data data
COPY neoplan neoplan
COPY ui ui
COPY pages pages

RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin neoplan \
    && mkdir -p /data && chown neoplan:neoplan /data
USER neoplan
VOLUME ["/data"]

EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4)"]
CMD ["sh", "-c", "python -m neoplan check-server --secrets \"$NEOPLAN_SECRETS\" && exec streamlit run app.py --server.address=0.0.0.0 --server.port=8501 --server.fileWatcherType=none --secrets.files=\"$NEOPLAN_SECRETS\""]
