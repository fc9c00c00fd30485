#!/bin/bash
# Installs LogFlushMonitor as a systemd service (docs/operations.md, "systemd"):
#   dotnet publish src/LogFlushMonitor -c Release -o ./publish
#   sudo deploy/systemd/install.sh ./publish
# Creates the user logflushmonitor and every path logflushmonitor.service uses: /opt/logflushmonitor (the app),
# /etc/logflushmonitor (appsettings.json and the secrets' environment file, kept if they exist),
# /var/log/logflushmonitor, /etc/systemd/system/logflushmonitor.service. Run it again to upgrade the app.
#
# --root DIR installs the files under DIR instead of / (packaging, tests): no user is created, nothing is chowned
# and systemctl is not called.
set -euo pipefail

usage() {
  echo "usage: install.sh [--root DIR] PUBLISH_DIR" >&2
  echo "  PUBLISH_DIR: the folder 'dotnet publish src/LogFlushMonitor -c Release -o PUBLISH_DIR' wrote" >&2
}

root=/
publish=
while [ $# -gt 0 ]; do
  case "$1" in
    --root) [ $# -ge 2 ] || { usage; exit 2; }; root=$2; shift 2 ;;
    --root=*) root=${1#--root=}; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "unknown option $1" >&2; usage; exit 2 ;;
    *) [ -z "$publish" ] || { usage; exit 2; }; publish=$1; shift ;;
  esac
done
[ -n "$publish" ] || { usage; exit 2; }
if [ ! -x "$publish/logflushmonitor" ]; then
  echo "$publish/logflushmonitor is missing or not executable: pass the folder dotnet publish wrote" >&2
  exit 2
fi

here=$(cd "$(dirname "$0")" && pwd)
base=${root%/}
user=logflushmonitor
app=$base/opt/logflushmonitor
conf=$base/etc/logflushmonitor
logs=$base/var/log/logflushmonitor
units=$base/etc/systemd/system

if [ "$root" = / ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "run as root (sudo), or pass --root DIR" >&2
    exit 1
  fi
  if ! getent passwd "$user" >/dev/null; then
    useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
      --comment "LogFlushMonitor" "$user"
    echo "Created the system user $user."
  fi
fi

# The app: replaced as a whole, so files of an older version do not linger.
rm -rf "$app"
install -d -m 0755 "$app"
cp -R "$publish"/. "$app"/
chmod -R u=rwX,go=rX "$app"

# Configuration: created once, never overwritten (it holds the operator's instances and secrets).
install -d -m 0750 "$conf"
if [ ! -e "$conf/appsettings.json" ]; then
  install -m 0640 /dev/null "$conf/appsettings.json"
  cat > "$conf/appsettings.json" <<'JSON'
{
  "Sources": {
    "SqlServer": {
      "Instances": [
        { "Name": "sql1", "ConnectionStringEnvironmentVariable": "LFM_SQL1" }
      ]
    }
  }
}
JSON
fi
if [ ! -e "$conf/environment" ]; then
  install -m 0640 /dev/null "$conf/environment"
  cat > "$conf/environment" <<'ENV'
# Secrets for logflushmonitor.service (readable by root and the service's group only).
# One connection string per instance named in appsettings.json, e.g.
# LFM_SQL1=Server=sql1.example.com;User ID=logflushmonitor;Password=...;Encrypt=True
ENV
fi
install -d -m 0750 "$logs"
install -d -m 0755 "$units"
install -m 0644 "$here/logflushmonitor.service" "$units/logflushmonitor.service"

if [ "$root" = / ]; then
  chown root:"$user" "$conf" "$conf/appsettings.json" "$conf/environment"
  chown "$user:$user" "$logs"
  systemctl daemon-reload
  echo "Installed. Name the instances in $conf/appsettings.json and their connection strings in $conf/environment,"
  echo "check them with: sudo -u $user $app/logflushmonitor check   (from $conf)"
  echo "then start:      systemctl enable --now logflushmonitor"
else
  echo "Installed under $root."
fi
