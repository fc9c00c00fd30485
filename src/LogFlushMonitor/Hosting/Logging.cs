using Microsoft.Extensions.Configuration;
using Serilog;
using Serilog.Events;
using Serilog.Formatting.Json;

namespace LogFlushMonitor.Hosting;

/// <summary>Builds the Serilog logger from <see cref="LogOptions"/> and an optional "Serilog" configuration section.</summary>
internal static class Logging
{
    private const string TextTemplate = "[{Timestamp:HH:mm:ss} {Level:u3}] {SourceContext}: {Message:lj}{NewLine}{Exception}";

    public static Serilog.ILogger Create(IConfiguration configuration, LogOptions options)
    {
        var level = Enum.TryParse<LogEventLevel>(options.Level, ignoreCase: true, out var l) ? l : LogEventLevel.Information;
        var config = new LoggerConfiguration()
            .MinimumLevel.Is(level)
            .MinimumLevel.Override("Microsoft", LogEventLevel.Warning)
            .MinimumLevel.Override("Microsoft.Hosting.Lifetime", LogEventLevel.Information)
            .Enrich.FromLogContext()
            .Enrich.With(new LogEscaping()); // names from servers and files never reach a log line as structure

        // Advanced users may add sinks and overrides in a "Serilog" section (Serilog.Settings.Configuration).
        if (configuration.GetSection("Serilog").Exists())
        {
            config = config.ReadFrom.Configuration(configuration);
        }

        var json = options.Format == "json";
        config = json
            ? config.WriteTo.Console(new JsonFormatter(renderMessage: true), standardErrorFromLevel: LogEventLevel.Verbose)
            : config.WriteTo.Console(outputTemplate: TextTemplate, standardErrorFromLevel: LogEventLevel.Verbose, formatProvider: System.Globalization.CultureInfo.InvariantCulture);
        if (!string.IsNullOrWhiteSpace(options.File))
        {
            config = json
                ? config.WriteTo.File(new JsonFormatter(renderMessage: true), options.File, rollingInterval: RollingInterval.Day, retainedFileCountLimit: options.RetainedFiles)
                : config.WriteTo.File(options.File, outputTemplate: TextTemplate, rollingInterval: RollingInterval.Day, retainedFileCountLimit: options.RetainedFiles, formatProvider: System.Globalization.CultureInfo.InvariantCulture);
        }

        return config.CreateLogger();
    }
}
