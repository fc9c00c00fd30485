using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.Sources;
using Microsoft.Extensions.Options;
using Serilog.Extensions.Logging;

namespace LogFlushMonitor.Hosting;

/// <summary>Builds the worker host behind <c>logflushmonitor run</c>.</summary>
public static class MonitorHost
{
    /// <summary>
    /// Builds the host. Configuration comes from <see cref="ConfigurationLoader"/> (<paramref name="configArgs"/> are
    /// <c>--Section:Key=value</c>, <paramref name="overrides"/> the command's own options such as --simulate) and is
    /// checked whole before anything is built: a problem throws <see cref="ConfigurationException"/>.
    /// <paramref name="environment"/> reads environment variables for the OTLP exporter's settings (the process's by
    /// default; tests give their own).
    /// </summary>
    public static IHost Build(string[] configArgs, IReadOnlyDictionary<string, string?> overrides, Action<IServiceCollection>? configureServices = null, Func<string, string?>? environment = null)
    {
        var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings
        {
            DisableDefaults = true,
            ContentRootPath = AppContext.BaseDirectory,
            EnvironmentName = ConfigurationLoader.EnvironmentName,
        });
        ConfigurationLoader.AddSources(builder.Configuration, configArgs, overrides);
        var loaded = ConfigurationLoader.Load(builder.Configuration, ConfigurationScope.Service, environment);
        var logOptions = loaded.Options.Log;

        builder.Logging.ClearProviders();
        var logFailures = new LogFileFailures(logOptions.File);
        builder.Services.AddSingleton(logFailures);
        var logProvider = new SerilogLoggerProvider(Logging.Create(builder.Configuration, logOptions, logFailures), dispose: true);
        builder.Logging.AddProvider(new StartupFailureLogFilter(logProvider));
        ConfigurationWarnings.Log(logProvider.CreateLogger(typeof(ConfigurationCheck).FullName!), loaded.Warnings);
        logProvider.CreateLogger(typeof(MallocTuning).FullName!).LogDebug("{Malloc}", MallocTuning.Describe(MallocTuning.Apply(Environment.GetEnvironmentVariable)));
        AddWindowsService(builder);

        var services = builder.Services;
        // Bound and validated once, above: every service reads the same instance.
        services.AddSingleton(Options.Create(loaded.Options));
        services.AddSingleton(environment is null ? OtlpEnvironment.Process : new OtlpEnvironment(environment));
        services.Configure<HostOptions>(h =>
        {
            h.ShutdownTimeout = TimeSpan.FromSeconds(15);
            h.BackgroundServiceExceptionBehavior = BackgroundServiceExceptionBehavior.StopHost;
        });

        services.AddSingleton(TimeProvider.System);
        services.AddSingleton(sp => new Readiness(
            sp.GetRequiredService<SourceHealth>(),
            sp.GetRequiredService<TimeProvider>(),
            sp.GetRequiredService<IOptions<MonitorOptions>>().Value.Http.ReadinessGracePeriod));
        services.AddSingleton<HostFailures>();
        services.AddSingleton(new SystemdNotifier(Environment.GetEnvironmentVariable("NOTIFY_SOCKET")));
        // Metrics: the Meter comes from IMeterFactory (owned by the container); the aggregation records the per-event
        // histograms, and the observable instruments read it through its read-only view. Neither holds the other.
        services.AddMetrics();
        services.AddSingleton<EventHistograms>();
        services.AddSingleton(sp => new RejectedReadingLog(sp.GetRequiredService<ILogger<RejectedReadingLog>>()));
        services.AddSingleton(sp => new LogFlushAggregator(
            sp.GetRequiredService<EventHistograms>(),
            CounterSelection.Create(sp.GetRequiredService<IOptions<MonitorOptions>>().Value.Sources.SqlServer.Counters),
            sp.GetRequiredService<RejectedReadingLog>().Report));
        services.AddSingleton<IAggregationReadings>(sp => sp.GetRequiredService<LogFlushAggregator>());
        services.AddSingleton(sp => new SourceHealth(sp.GetRequiredService<TimeProvider>()));
        services.AddSingleton<ExportHealth>();
        services.AddSingleton<LogFlushMetrics>();
        services.AddSingleton(sp => new SamplePipeline(
            sp.GetRequiredService<LogFlushAggregator>(),
            sp.GetRequiredService<IOptions<MonitorOptions>>().Value.Pipeline.ChannelCapacity));
        services.AddSingleton<TelemetryService>();
        services.AddSingleton<SourceShutdown>();
        services.AddSingleton<ISourceShutdown>(sp => sp.GetRequiredService<SourceShutdown>());
        services.AddSingleton<ISourceReadiness>(sp => sp.GetRequiredService<Readiness>());

        // Start order = registration order; stop order is the reverse: sources stop first, the pipeline
        // drains, and telemetry exports the last values.
        services.AddHostedService<SystemdNotifierService>();
        services.AddHostedService<HangupSignalService>();
        services.AddHostedService(sp => sp.GetRequiredService<TelemetryService>());
        services.AddHostedService<PipelineService>();
        services.AddHostedService<SimulationSourceService>();
        services.AddHostedService<ReplaySourceService>();
        services.AddSqlServerSource(builder.Configuration);
        services.AddHostedService<SummaryService>();
        configureServices?.Invoke(services);
        return builder.Build();
    }

    /// <summary>
    /// When the Service Control Manager started the process (and only then): the host reports start and stop to it,
    /// and warnings and errors also go to the Application Event Log under the source <see cref="EventLogSource"/>
    /// (deploy/windows/install.ps1 registers it; the service's virtual account could not). Console and Log:File
    /// logging stay as they are. Anywhere else this does nothing.
    /// </summary>
    private static void AddWindowsService(HostApplicationBuilder builder)
    {
        builder.Services.AddWindowsService(o => o.ServiceName = EventLogSource);
        if (OperatingSystem.IsWindows())
        {
            ConfigureEventLog(builder);
        }
    }

    [System.Runtime.Versioning.SupportedOSPlatform("windows")]
    private static void ConfigureEventLog(HostApplicationBuilder builder)
    {
        builder.Services.Configure<Microsoft.Extensions.Logging.EventLog.EventLogSettings>(s => s.SourceName = EventLogSource);
        builder.Logging.AddFilter<Microsoft.Extensions.Logging.EventLog.EventLogLoggerProvider>(null, LogLevel.Warning);
    }

    /// <summary>The Event Log source the Windows service writes under.</summary>
    public const string EventLogSource = "LogFlushMonitor";
}
