using LogFlushMonitor.TdsTestServer;

namespace LogFlushMonitor.SqlServer.Tests.Scripted;

public sealed partial class ScriptedSqlServer
{
    private void AddCheckRules()
    {
        Server.When("SERVERPROPERTY('ProductVersion')", r => Begin(r).ResultSet(
            [TdsColumn.NVarChar("ProductVersion"), TdsColumn.NVarChar("Edition"), TdsColumn.Int("EngineEdition")],
            [[ProductVersion, Edition, EngineEdition]]));
        // check --capture: the shape of Microsoft's documented @@VERSION example (its page), with this server's version.
        Server.When("@@VERSION", r => Begin(r).ResultSet(
            [TdsColumn.NVarChar("Version"), TdsColumn.NVarChar("ProductLevel"), TdsColumn.NVarChar("ProductUpdateLevel"), TdsColumn.NVarChar("ProductMajorVersion"), TdsColumn.Int("EngineEdition")],
            [[$"Microsoft SQL Server 2022 (RTM-CU14) (KB5038325) - {ProductVersion} (X64) \n\tJun 18 2024 20:46:48 \n\tCopyright (C) 2022 Microsoft Corporation\n\t{Edition} on Linux (Ubuntu 22.04.4 LTS) <X64>",
              "RTM", "CU14", ProductVersion.Split('.')[0], EngineEdition]]));
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
