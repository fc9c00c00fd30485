using System.CommandLine;
using LogFlushMonitor.Hosting;
using LogFlushMonitor.SqlServer;
using LogFlushMonitor.SqlServer.Check;
using LogFlushMonitor.SqlServer.Fleet;

namespace LogFlushMonitor.Commands;

/// <summary>
/// <c>logflushmonitor check</c>: connects to every configured instance (Sources:SqlServer, same configuration
/// sources as <c>run</c>) and reports version, permissions, encryption and what will be collected. Exit 0 only
/// when every instance is fine, 1 otherwise, 2 for invalid configuration.
/// </summary>
internal static class CheckCommand
{
    public static Command Create()
    {
        var command = new Command("check", "Check every configured SQL Server instance: version, permissions held and missing, encryption, what will be collected. Configuration keys can be given as --Section:Key=value.");
        command.TreatUnmatchedTokensAsErrors = false;
        command.SetAction(async (parse, cancellationToken) =>
        {
            var unmatched = parse.UnmatchedTokens.ToArray();
            if (unmatched.FirstOrDefault(t => !t.StartsWith("--", StringComparison.Ordinal) || !t.Contains(':', StringComparison.Ordinal)) is { } bad)
            {
                await Console.Error.WriteLineAsync($"Unknown argument '{LogEscaping.Escape(bad)}'. Configuration keys are given as --Section:Key=value.").ConfigureAwait(false);
                return ExitCodes.Configuration;
            }

            return await RunAsync(unmatched, Console.Out, Console.Error, cancellationToken).ConfigureAwait(false);
        });
        return command;
    }

    /// <summary>Loads and checks the configuration (Sources:SqlServer), checks every instance and writes the report; returns the exit code.</summary>
    internal static async Task<int> RunAsync(string[] configArgs, TextWriter output, TextWriter error, CancellationToken cancellationToken)
    {
        SqlServerSourceOptions options;
        try
        {
            var loaded = ConfigurationLoader.Load(configArgs, null, ConfigurationScope.SqlServer);
            await ConfigurationLoader.WriteWarningsAsync(loaded.Warnings, error).ConfigureAwait(false);
            options = loaded.Options.Sources.SqlServer;
        }
        catch (ConfigurationException e)
        {
            await ConfigurationLoader.WriteAsync(e, error).ConfigureAwait(false);
            return ExitCodes.Configuration;
        }

        if (options.Instances.Count == 0)
        {
            await ConfigurationLoader.WriteAsync(new ConfigurationException([$"{SqlServerOptionsValidator.Section}:Instances is empty: configure at least one instance."], []), error).ConfigureAwait(false);
            return ExitCodes.Configuration;
        }

        // Instances are checked side by side: one that hangs costs its own timeouts only.
        var results = await Task.WhenAll(options.Instances.Select(i =>
            InstanceChecker.CheckAsync(i, options, null, cancellationToken))).ConfigureAwait(false);
        CheckReport.Write(output, results.Select(Escaped).ToList());
        return results.All(r => r.Ok) ? ExitCodes.Ok : ExitCodes.Failure;
    }

    /// <summary>
    /// The result with every text escaped as log lines are (<see cref="LogEscaping"/>): the server's version, edition and
    /// error messages, and the configured instance name, may hold ESC, OSC, BEL, CR or LF, which would reach the
    /// terminal as commands or forge lines of the report (an "All ... OK." that is not).
    /// </summary>
    internal static InstanceCheckResult Escaped(InstanceCheckResult r) => r with
    {
        Instance = LogEscaping.Escape(r.Instance),
        Target = r.Target is null ? null : LogEscaping.Escape(r.Target),
        ProductVersion = r.ProductVersion is null ? null : LogEscaping.Escape(r.ProductVersion),
        Edition = r.Edition is null ? null : LogEscaping.Escape(r.Edition),
        Permissions = [.. r.Permissions.Select(p => p with { Permission = LogEscaping.Escape(p.Permission), Purpose = LogEscaping.Escape(p.Purpose) })],
        WillCollect = [.. r.WillCollect.Select(LogEscaping.Escape)],
        Problems = [.. r.Problems.Select(LogEscaping.Escape)],
        Warnings = [.. r.Warnings.Select(LogEscaping.Escape)],
    };
}
