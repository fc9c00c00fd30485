using System.CommandLine;
using LogFlushMonitor.Analysis.Commands;
using System.Globalization;
using System.Reflection;
using System.Runtime.InteropServices;
using LogFlushMonitor.Hosting;
using LogFlushMonitor.SqlServer;
using LogFlushMonitor.SqlServer.Check;
using LogFlushMonitor.SqlServer.Check.Capture;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Fleet;

namespace LogFlushMonitor.Commands;

/// <summary>
/// <c>logflushmonitor check</c>: connects to every configured instance (Sources:SqlServer, same configuration
/// sources as <c>run</c>) and reports version, permissions, encryption and what will be collected. Exit 0 only
/// when every instance is fine, 1 otherwise, 2 for invalid configuration. With <c>--capture FILE</c> it then records what
/// the monitor's beliefs rest on, from each instance, into one zip (<see cref="CaptureArchive"/>; CONTRIBUTING.md).
/// </summary>
internal static class CheckCommand
{
    public static Command Create()
    {
        var command = new Command("check", "Check every configured SQL Server instance: version, permissions held and missing, encryption, what will be collected. Configuration keys can be given as --Section:Key=value.");
        var capture = new Option<FileInfo?>("--capture")
        {
            Description = "Also record, into this zip, what the monitor relies on from each instance (version, XE catalog rows, two polls 15 s apart, 30 s of the live stream's raw rows, the histogram target's XML): review it, then send it (CONTRIBUTING.md). Never holds the connection string, password, login or this machine's name.",
            HelpName = "capture.zip",
        };
        var anonymize = new Option<bool>("--anonymize") { Description = "With --capture: replace user database and instance names by db1, db2, ... and instance1, ... in every entry." };
        // For tests: a capture takes 30 s by default.
        var pollGap = new Option<string?>("--capture-poll-gap") { Hidden = true };
        var streamTime = new Option<string?>("--capture-stream-time") { Hidden = true };
        command.Options.Add(capture);
        command.Options.Add(anonymize);
        command.Options.Add(pollGap);
        command.Options.Add(streamTime);
        command.TreatUnmatchedTokensAsErrors = false;
        command.SetAction(async (parse, cancellationToken) =>
        {
            var unmatched = parse.UnmatchedTokens.ToArray();
            if (unmatched.FirstOrDefault(t => !t.StartsWith("--", StringComparison.Ordinal) || !t.Contains(':', StringComparison.Ordinal)) is { } bad)
            {
                await parse.Error().WriteLineAsync($"Unknown argument '{LogEscaping.Escape(bad)}'. Configuration keys are given as --Section:Key=value.").ConfigureAwait(false);
                return ExitCodes.Configuration;
            }

            CaptureRequest? request = null;
            if (parse.GetValue(capture) is { } file)
            {
                var settings = new CaptureSettings { Anonymize = parse.GetValue(anonymize), ToolVersion = ToolVersion() };
                foreach (var (option, text, apply) in new (string, string?, Func<TimeSpan, CaptureSettings>)[]
                {
                    ("--capture-poll-gap", parse.GetValue(pollGap), t => settings with { PollGap = t }),
                    ("--capture-stream-time", parse.GetValue(streamTime), t => settings with { StreamTime = t }),
                })
                {
                    if (text is null)
                    {
                        continue;
                    }

                    if (!DurationParser.TryParse(text, out var duration))
                    {
                        await parse.Error().WriteLineAsync($"{option} '{LogEscaping.Escape(text)}' is not a duration (e.g. 2s).").ConfigureAwait(false);
                        return ExitCodes.Configuration;
                    }

                    settings = apply(duration);
                }

                request = new CaptureRequest(file.FullName, settings);
            }
            else if (parse.GetValue(anonymize))
            {
                await parse.Error().WriteLineAsync("--anonymize applies to a capture: give --capture FILE too.").ConfigureAwait(false);
                return ExitCodes.Configuration;
            }

            // check creates event sessions on the servers (the histogram probe, a capture's temporary session): SIGTERM
            // (timeout, systemd, Kubernetes, docker stop) and Ctrl+C both cancel, so each is dropped on the way out. A
            // second signal ends the process at once.
            using var stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            void OnSignal(PosixSignalContext context)
            {
                if (!stop.IsCancellationRequested)
                {
                    context.Cancel = true;
                    stop.Cancel();
                }
            }

            using var sigint = PosixSignalRegistration.Create(PosixSignal.SIGINT, OnSignal);
            using var sigterm = PosixSignalRegistration.Create(PosixSignal.SIGTERM, OnSignal);
            return await RunAsync(unmatched, parse.Out(), parse.Error(), stop.Token, request).ConfigureAwait(false);
        });
        return command;
    }

    /// <summary>Loads and checks the configuration (Sources:SqlServer), checks every instance and writes the report; returns the exit code.</summary>
    internal static async Task<int> RunAsync(string[] configArgs, TextWriter output, TextWriter error, CancellationToken cancellationToken, CaptureRequest? capture = null)
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

        if (capture is not null && Path.GetDirectoryName(capture.Path) is { } folder && !Directory.Exists(folder))
        {
            await error.WriteLineAsync($"--capture: the folder {LogEscaping.Escape(folder)} does not exist; create it or name a file in an existing folder.").ConfigureAwait(false);
            return ExitCodes.Configuration;
        }

        // Instances are checked side by side: one that hangs costs its own timeouts only.
        var results = await Task.WhenAll(options.Instances.Select(i =>
            InstanceChecker.CheckAsync(i, options, null, cancellationToken))).ConfigureAwait(false);
        CheckReport.Write(output, results.Select(Escaped).ToList());
        var exit = results.All(r => r.Ok) ? ExitCodes.Ok : ExitCodes.Failure;
        return capture is null ? exit : await CaptureAsync(options, capture, output, error, exit, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>A capture asked for on the command line: where to write it and how.</summary>
    internal sealed record CaptureRequest(string Path, CaptureSettings Settings);

    /// <summary>
    /// Captures every instance side by side and writes the zip; the exit code stays the check's, or 1 when the file could not
    /// be written. Ctrl+C ends it without a file (each temporary session is dropped on the way out).
    /// </summary>
    private static async Task<int> CaptureAsync(SqlServerSourceOptions options, CaptureRequest request, TextWriter output, TextWriter error, int exit, CancellationToken ct)
    {
        var settings = request.Settings;
        await output.WriteLineAsync(string.Create(CultureInfo.InvariantCulture,
            $"\nCapturing for --capture: two polls {settings.PollGap.TotalSeconds:0.###} s apart and {settings.StreamTime.TotalSeconds:0.###} s of the live stream on a temporary event session per instance...")).ConfigureAwait(false);
        var started = DateTime.UtcNow;
        IReadOnlyList<InstanceCaptureResult> captures;
        try
        {
            captures = await Task.WhenAll(options.Instances.Select(i => InstanceCapture.CaptureAsync(i, options, settings, null, TimeProvider.System, ct))).ConfigureAwait(false);
            await CaptureArchive.WriteAsync(request.Path, captures, settings, started, Logins(options), ct).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (ct.IsCancellationRequested)
        {
            await error.WriteLineAsync("Capture cancelled: no file written.").ConfigureAwait(false);
            return ExitCodes.Failure;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            await error.WriteLineAsync($"--capture: cannot write {LogEscaping.Escape(request.Path)}: {LogEscaping.Escape(e.Message)}").ConfigureAwait(false);
            return ExitCodes.Failure;
        }

        var failed = captures.Sum(c => c.Statements.Count(s => s.ErrorNumber is not null));
        await output.WriteLineAsync($"Capture written: {LogEscaping.Escape(request.Path)} ({new FileInfo(request.Path).Length.ToString("N0", CultureInfo.InvariantCulture)} bytes).").ConfigureAwait(false);
        await output.WriteLineAsync($"  It holds {CaptureArchive.Contains}.").ConfigureAwait(false);
        await output.WriteLineAsync($"  It never holds {CaptureArchive.NeverContains}. "
            + (settings.Anonymize ? "User database and instance names are replaced by db1, db2, ... and instance1, ...." : "Database and instance names are kept: --anonymize replaces them.")).ConfigureAwait(false);
        await output.WriteLineAsync(string.Create(CultureInfo.InvariantCulture,
            $"  {captures.Sum(c => c.Statements.Count)} statements ({failed} failed, with their errors), {captures.Sum(c => c.StreamRows.Count)} stream rows; manifest.json lists each.")).ConfigureAwait(false);
        foreach (var c in captures.Where(c => c.Session is not null))
        {
            // Every row the stream sent, by its type column (kept or not): what the row-type beliefs rest on.
            await output.WriteLineAsync($"  {c.Instance}: live-stream rows received by type: {c.StreamRowTypes.Describe()}.").ConfigureAwait(false);
        }

        foreach (var problem in captures.SelectMany(c => c.Problems.Select(p => $"{c.Instance}: {p}")))
        {
            await output.WriteLineAsync($"  capture problem: {LogEscaping.Escape(problem)}").ConfigureAwait(false);
        }

        await output.WriteLineAsync("  Please review it (a zip of JSON and XML files) before you send it: CONTRIBUTING.md says how.").ConfigureAwait(false);
        return exit;
    }

    /// <summary>The login of each instance's connection string (SQL authentication), to be taken out of every text of a capture.</summary>
    private static List<string> Logins(SqlServerSourceOptions options)
    {
        var logins = new List<string>();
        foreach (var instance in options.Instances)
        {
            try
            {
                var user = SqlServerDataSource.Create(instance, options).UserId;
                if (!string.IsNullOrEmpty(user))
                {
                    logins.Add(user);
                }
            }
            catch (Exception e) when (e is InvalidOperationException or ArgumentException or FormatException)
            {
                // Unresolvable: that instance's capture failed to connect and holds no server text.
            }
        }

        return logins;
    }

    private static string ToolVersion() =>
        "logflushmonitor " + (typeof(CheckCommand).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion ?? "unknown");

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
        Advice = [.. r.Advice.Select(LogEscaping.Escape)],
    };
}
