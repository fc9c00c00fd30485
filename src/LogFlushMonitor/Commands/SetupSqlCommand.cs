using System.CommandLine;
using LogFlushMonitor.Analysis.Commands;
using LogFlushMonitor.SqlServer.Setup;

namespace LogFlushMonitor.Commands;

/// <summary><c>logflushmonitor setup-sql [--azure] [--version 2019|2022] [--login name]</c>: prints the least-privilege script.</summary>
internal static class SetupSqlCommand
{
    public static Command Create()
    {
        var azure = new Option<bool>("--azure") { Description = "Azure SQL Database: database-level permissions (run part 2 in each monitored database)." };
        var version = new Option<int>("--version") { Description = "SQL Server version: 2019 (or earlier) or 2022 (or later).", DefaultValueFactory = _ => 2022 };
        var login = new Option<string>("--login") { Description = "Login and user name.", DefaultValueFactory = _ => SetupScripts.DefaultLogin };
        var command = new Command("setup-sql", "Print the T-SQL that creates a least-privilege login for the monitor (never sysadmin). Replace the password placeholder before running it.")
        {
            azure, version, login,
        };
        command.SetAction(async (parse, _) =>
        {
            var v = parse.GetValue(version);
            if (v is < 2012 or > 2100)
            {
                await parse.Error().WriteLineAsync($"--version {v} is not a SQL Server version: use 2019 or 2022.").ConfigureAwait(false);
                return ExitCodes.Configuration;
            }

            try
            {
                await parse.Out().WriteAsync(SetupScripts.Build(SetupScripts.TargetFor(parse.GetValue(azure), v), parse.GetValue(login)!)).ConfigureAwait(false);
                return ExitCodes.Ok;
            }
            catch (ArgumentException e)
            {
                await parse.Error().WriteLineAsync(e.Message).ConfigureAwait(false);
                return ExitCodes.Configuration;
            }
        });
        return command;
    }
}
