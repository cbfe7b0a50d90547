# One image for the web server and both workers (see docker-compose.yml).
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 STUDIO_VAR_DIR=/srv/var
WORKDIR /srv/app
COPY pyproject.toml README.md ./
RUN pip install --no-cache-dir .
COPY . .
# Static files are collected with the production storage (hashed names + manifest); the key is
# a throw-away needed only to import the settings.
RUN STUDIO_MODE=production ALLOWED_HOSTS=build \
    SECRET_KEY="$(python -c 'import secrets; print(secrets.token_urlsafe(64))')" \
    python manage.py collectstatic --noinput \
    && useradd --system --home /srv studio && mkdir -p /srv/var && chown -R studio /srv/var
USER studio
EXPOSE 8000
CMD ["gunicorn", "studio.wsgi", "--config", "python:studio.gunicorn_conf", "--bind", "0.0.0.0:8000", "--workers", "3", "--access-logfile", "-"]
