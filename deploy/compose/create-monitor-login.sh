#!/bin/bash
# One-shot of docker-compose.yml (service sqlserver-setup): creates the monitor's least-privilege login on the
# stack's SQL Server with the script `logflushmonitor setup-sql` prints (deploy/sql/setup-sqlserver-2022.sql),
# the password taken from the environment (.env). Runs in the SQL Server image, which ships sqlcmd (mssql-tools18).
set -euo pipefail

: "${MSSQL_SA_PASSWORD:?is not set: copy .env.example to .env and set the passwords (docs/operations.md, "Docker Compose")}"
: "${LOGFLUSHMONITOR_SQL_PASSWORD:?is not set: copy .env.example to .env and set the passwords (docs/operations.md, "Docker Compose")}"
case "$LOGFLUSHMONITOR_SQL_PASSWORD" in
  *"'"*) echo "LOGFLUSHMONITOR_SQL_PASSWORD must not contain a single quote (') : choose another password in .env" >&2; exit 2 ;;
esac

sqlcmd=/opt/mssql-tools18/bin/sqlcmd
server=${SQLSERVER_HOST:-sqlserver}
script=${SETUP_SCRIPT:-/sql/setup-sqlserver-2022.sql}
# sqlcmd reads the sa password from SQLCMDPASSWORD: it never appears on a command line.
export SQLCMDPASSWORD="$MSSQL_SA_PASSWORD"

exists=$("$sqlcmd" -C -S "$server" -U sa -b -h -1 -W \
  -Q "SET NOCOUNT ON; SELECT COUNT(*) FROM sys.server_principals WHERE name = N'logflushmonitor';" | tr -d '[:space:]')
if [ "$exists" = "1" ]; then
  echo "The login logflushmonitor exists already: nothing to do."
  exit 0
fi

# The shipped script carries a placeholder; it becomes a sqlcmd variable that sqlcmd fills from the environment.
# shellcheck disable=SC2016 # $(...) is sqlcmd's variable syntax, not the shell's
sed 's/<replace-with-a-strong-password>/$(LogFlushMonitorPassword)/' "$script" > /tmp/setup-logflushmonitor.sql
LogFlushMonitorPassword="$LOGFLUSHMONITOR_SQL_PASSWORD" "$sqlcmd" -C -S "$server" -U sa -b -i /tmp/setup-logflushmonitor.sql
rm -f /tmp/setup-logflushmonitor.sql

# Optional and broad (docs/sqlserver.md): log file write latency needs the rows of sys.master_files.
if [ "${LOGFLUSHMONITOR_GRANT_VIEW_ANY_DEFINITION:-no}" = "yes" ]; then
  "$sqlcmd" -C -S "$server" -U sa -b -Q "GRANT VIEW ANY DEFINITION TO [logflushmonitor];"
fi
echo "Created the login logflushmonitor with the grants of $script."
