using System.Globalization;
using Microsoft.Extensions.Configuration;
using Serilog;
using Serilog.Events;
using Serilog.Core;
using Serilog.Formatting;
using Serilog.Formatting.Display;
using Serilog.Formatting.Json;

namespace LogFlushMonitor.Hosting;

/// <summary>Builds the Serilog logger from <see cref="LogOptions"/> and the optional "Serilog" configuration section.</summary>
internal static class Logging
{
    // {ExceptionText} is the exception as LogEscaping escaped it (absent when there is none), not Serilog's {Exception}.
    private const string TextTemplate = "[{Timestamp:HH:mm:ss} {Level:u3}] {SourceContext}: {Message:lj}{NewLine}{" + LogEscaping.ExceptionTextProperty + ":l}";
    private const string SectionHelp =
        "The Serilog section takes Serilog:MinimumLevel (or Serilog:MinimumLevel:Default) and Serilog:MinimumLevel:Override:<source>, "
        + "each Verbose, Debug, Information, Warning, Error or Fatal; sinks are Log:File and Log:Format (docs/configuration.md)";

    /// <summary>
    /// The logger: the console (stderr), or <paramref name="console"/> when given (a command run in-process), and Log:File
    /// when set, whose write failures go to <paramref name="fileFailures"/>.
    /// </summary>
    public static Serilog.ILogger Create(IConfiguration configuration, LogOptions options, LogFileFailures? fileFailures = null, TextWriter? console = null)
    {
        var level = Enum.TryParse<LogEventLevel>(options.Level, ignoreCase: true, out var l) ? l : LogEventLevel.Information;
        var config = new LoggerConfiguration()
            .MinimumLevel.Is(level)
            .MinimumLevel.Override("Microsoft", LogEventLevel.Warning)
            .MinimumLevel.Override("Microsoft.Hosting.Lifetime", LogEventLevel.Information)
            // A /readyz that answers 503 is the probe's answer, not an error of the service: the health check service
            // would log each one at Error.
            .MinimumLevel.Override("Microsoft.Extensions.Diagnostics.HealthChecks", LogEventLevel.Fatal)
            .Enrich.FromLogContext()
            .Enrich.With(new LogEscaping(exceptionText: options.Format != "json")); // names from servers and files never reach a log line as structure
        config = ApplySerilogSection(config, configuration.GetSection("Serilog"));

        var json = options.Format == "json";
        config = (json, console) switch
        {
            (true, null) => config.WriteTo.Console(new JsonFormatter(renderMessage: true), standardErrorFromLevel: LogEventLevel.Verbose),
            (false, null) => config.WriteTo.Console(outputTemplate: TextTemplate, standardErrorFromLevel: LogEventLevel.Verbose, formatProvider: CultureInfo.InvariantCulture),
            (true, _) => config.WriteTo.Sink(new WriterSink(new JsonFormatter(renderMessage: true), console)),
            (false, _) => config.WriteTo.Sink(new WriterSink(new MessageTemplateTextFormatter(TextTemplate, CultureInfo.InvariantCulture), console)),
        };
        if (!string.IsNullOrWhiteSpace(options.File))
        {
            // Fallible: the file sink reports a write that failed (a full disk) instead of dropping it in silence.
            var failures = fileFailures ?? new LogFileFailures(options.File);
            config = json
                ? config.WriteTo.Fallible(w => w.File(new JsonFormatter(renderMessage: true), options.File, rollingInterval: RollingInterval.Day, retainedFileCountLimit: options.RetainedFiles), failures)
                : config.WriteTo.Fallible(w => w.File(options.File, outputTemplate: TextTemplate, rollingInterval: RollingInterval.Day, retainedFileCountLimit: options.RetainedFiles, formatProvider: CultureInfo.InvariantCulture), failures);
        }

        return config.CreateLogger();
    }

    /// <summary>
    /// Our own binding of the "Serilog" section: the minimum level and per-source overrides, nothing else. Not
    /// Serilog.Settings.Configuration: it finds sinks by scanning assemblies, which NativeAOT cannot do (a WriteTo
    /// crashed the native build, and with Using the File sink silently wrote nothing). Any other key fails the start
    /// (exit 2) naming it, rather than being ignored.
    /// </summary>
    /// <exception cref="InvalidDataException">A key the section does not take, or a level that is not one.</exception>
    internal static LoggerConfiguration ApplySerilogSection(LoggerConfiguration config, IConfigurationSection section)
    {
        foreach (var child in section.GetChildren())
        {
            if (!child.Key.Equals("MinimumLevel", StringComparison.OrdinalIgnoreCase))
            {
                throw new InvalidDataException($"{child.Path} is not supported. {SectionHelp}.");
            }

            if (child.Value is { } single)
            {
                config = config.MinimumLevel.Is(ParseLevel(child.Path, single));
                continue;
            }

            foreach (var setting in child.GetChildren())
            {
                if (setting.Key.Equals("Default", StringComparison.OrdinalIgnoreCase) && setting.Value is { } level)
                {
                    config = config.MinimumLevel.Is(ParseLevel(setting.Path, level));
                }
                else if (setting.Key.Equals("Override", StringComparison.OrdinalIgnoreCase))
                {
                    foreach (var source in setting.GetChildren())
                    {
                        config = config.MinimumLevel.Override(source.Key, ParseLevel(source.Path, source.Value));
                    }
                }
                else
                {
                    throw new InvalidDataException($"{setting.Path} is not supported. {SectionHelp}.");
                }
            }
        }

        return config;
    }

    private static LogEventLevel ParseLevel(string key, string? value) =>
        Enum.TryParse<LogEventLevel>(value, ignoreCase: true, out var level) && Enum.IsDefined(level)
            ? level
            : throw new InvalidDataException($"{key} is '{value}', which is not a level. {SectionHelp}.");

    /// <summary>Log lines to a writer that is not the console (a command run in-process), one event at a time.</summary>
    private sealed class WriterSink(ITextFormatter formatter, TextWriter writer) : ILogEventSink
    {
        private readonly Lock _lock = new();

        public void Emit(LogEvent logEvent)
        {
            lock (_lock)
            {
                formatter.Format(logEvent, writer);
                writer.Flush();
            }
        }
    }
}
