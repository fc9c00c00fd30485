using LogFlushMonitor.TdsTestServer;

namespace LogFlushMonitor.SqlServer.Tests.Scripted;

public sealed partial class ScriptedSqlServer
{
    private void AddCheckRules()
    {
        Server.When("SERVERPROPERTY('ProductVersion')", r => Begin(r).ResultSet(
            [TdsColumn.NVarChar("ProductVersion"), TdsColumn.NVarChar("Edition"), TdsColumn.Int("EngineEdition")],
            [[ProductVersion, Edition, EngineEdition]]));
        Server.When("sys.dm_exec_connections", r => Begin(r).ResultSet(
            [TdsColumn.NVarChar("EncryptOption")], [[Encrypted || r.Login.Security is TdsSessionSecurity.Full or TdsSessionSecurity.Strict ? "TRUE" : "FALSE"]]));
        Server.When("HAS_PERMS_BY_NAME", r =>
        {
            var permission = (string)r.Parameter("permission")!;
            object? has;
            lock (_gate)
            {
                has = !KnownPermissions.Contains(permission) ? null : HeldPermissions.Contains(permission) && !_denied.Contains(permission) ? 1 : 0;
            }

            return Begin(r).ResultSet([TdsColumn.Int("HasPermission")], [[has]]);
        });
    }
}
