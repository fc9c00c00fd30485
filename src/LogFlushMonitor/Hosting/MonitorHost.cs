using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.Sources;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.Options;
using Serilog.Extensions.Logging;

namespace LogFlushMonitor.Hosting;

/// <summary>
/// Builds the one host behind <c>logflushmonitor run</c>: a slim ASP.NET Core application whose Kestrel server serves
/// /healthz and /readyz (ASP.NET Core health checks) and, when Prometheus is enabled, /metrics; whose container owns
/// the OpenTelemetry MeterProvider (<c>AddOpenTelemetry()</c>); and whose hosted services are the sources, the
/// pipeline and the exporters. With Http:Enabled=false no server listens at all.
/// </summary>
public static class MonitorHost
{
    /// <summary>
    /// Builds the host. Configuration comes from <see cref="ConfigurationLoader"/> (<paramref name="configArgs"/> are
    /// <c>--Section:Key=value</c>, <paramref name="overrides"/> the command's own options such as --simulate) and is
    /// checked whole before anything is built: a problem throws <see cref="ConfigurationException"/>.
    /// <paramref name="environment"/> reads environment variables for the OTLP exporter's settings (the process's by
    /// default; tests give their own). <paramref name="log"/>, when given, takes the log lines instead of the console (a
    /// command run in-process by a test).
    /// </summary>
    public static IHost Build(string[] configArgs, IReadOnlyDictionary<string, string?> overrides, Action<IServiceCollection>? configureServices = null, Func<string, string?>? environment = null, TextWriter? log = null)
    {
        var builder = WebApplication.CreateSlimBuilder(new WebApplicationOptions
        {
            ContentRootPath = AppContext.BaseDirectory,
            EnvironmentName = ConfigurationLoader.EnvironmentName,
        });

        // Our sources only: the builder's own (appsettings.json in the content root, every environment variable, the
        // ASPNETCORE_ ones) would let variables meant for something else configure the service.
        builder.Configuration.Sources.Clear();
        ConfigurationLoader.AddSources(builder.Configuration, configArgs, overrides);
        var loaded = ConfigurationLoader.Load(builder.Configuration, ConfigurationScope.Service, environment);
        var o = loaded.Options;

        // The OpenTelemetry SDK reads the specification's variables (OTEL_EXPORTER_OTLP_*, OTEL_RESOURCE_ATTRIBUTES,
        // OTEL_SERVICE_NAME) from the container's configuration: they are added as they are, after the check (they are
        // not our keys).
        builder.Configuration.AddInMemoryCollection(OpenTelemetryVariables(environment));

        builder.Logging.ClearProviders();
        var logFailures = new LogFileFailures(o.Log.File, log);
        builder.Services.AddSingleton(logFailures);
        var logProvider = new SerilogLoggerProvider(Logging.Create(builder.Configuration, o.Log, logFailures, log), dispose: true);
        builder.Logging.AddProvider(new StartupFailureLogFilter(logProvider));
        ConfigurationWarnings.Log(logProvider.CreateLogger(typeof(ConfigurationCheck).FullName!), loaded.Warnings);
        logProvider.CreateLogger(typeof(MallocTuning).FullName!).LogDebug("{Malloc}", MallocTuning.Describe(MallocTuning.Apply(Environment.GetEnvironmentVariable)));
        AddWindowsService(builder);
        HttpEndpoints.ConfigureServer(builder, o.Http);

        var services = builder.Services;
        // Bound and validated once, above: every service reads the same instance.
        services.AddSingleton(Options.Create(o));
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
        services.AddHealthChecks().AddCheck<ReadinessHealthCheck>(ReadinessHealthCheck.Name);
        services.AddSingleton<HostFailures>();
        services.AddSingleton(new SystemdNotifier(Environment.GetEnvironmentVariable("NOTIFY_SOCKET")));
        // Metrics: the Meter comes from IMeterFactory (owned by the container); LogFlushMetrics creates every instrument
        // of the catalog on it. The aggregation records each event's values through it and is what its observable
        // families read; the health registries hold state only.
        services.AddMetrics();
        services.AddSingleton(sp => new SourceHealth(sp.GetRequiredService<TimeProvider>()));
        services.AddSingleton<ExportHealth>();
        services.AddSingleton<LogFlushMetrics>();
        services.AddSingleton(sp => new RejectedReadingLog(sp.GetRequiredService<ILogger<RejectedReadingLog>>()));
        services.AddSingleton(sp => new AgreementLog(sp.GetRequiredService<ILogger<AgreementLog>>(), sp.GetRequiredService<SourceHealth>()));
        services.AddSingleton(sp => new LogFlushAggregator(
            sp.GetRequiredService<LogFlushMetrics>(),
            CounterSelection.Create(sp.GetRequiredService<IOptions<MonitorOptions>>().Value.Sources.SqlServer.Counters),
            sp.GetRequiredService<RejectedReadingLog>().Report,
            sp.GetRequiredService<AgreementLog>().Report,
            sp.GetRequiredService<IOptions<MonitorOptions>>().Value.Replicas.Thresholds()));
        services.AddSingleton(sp => new SamplePipeline(
            sp.GetRequiredService<LogFlushAggregator>(),
            sp.GetRequiredService<IOptions<MonitorOptions>>().Value.Pipeline.ChannelCapacity));
        services.AddSingleton<SourceShutdown>();
        services.AddSingleton<ISourceShutdown>(sp => sp.GetRequiredService<SourceShutdown>());
        services.AddSingleton<ISourceReadiness>(sp => sp.GetRequiredService<Readiness>());

        // Start order = registration order; stop order is the reverse: the HTTP server (added last by the builder)
        // stops first, then the sources, the pipeline drains, and telemetry exports the last values. The MeterProvider
        // is built when its hosted service (registered by AddOpenTelemetry, before the sources) starts.
        services.AddHostedService<SystemdNotifierService>();
        services.AddHostedService<HangupSignalService>();
        var scrapeHandler = TelemetryService.AddTelemetry(services, o);
        services.AddHostedService<TelemetryService>();
        services.AddHostedService<PipelineService>();
        services.AddHostedService<SimulationSourceService>();
        services.AddHostedService<ReplaySourceService>();
        // The options bound and validated once, above (ConfigurationLoader): not bound again from the configuration.
        services.AddSqlServerSource(o.Sources.SqlServer);
        services.AddHostedService<SummaryService>();
        configureServices?.Invoke(services);

        var app = builder.Build();
        HttpEndpoints.Map(app, o, scrapeHandler);
        return app;
    }

    /// <summary>The addresses the HTTP server bound (port 0 resolved), once the host has started; none when Http:Enabled is false.</summary>
    public static IReadOnlyList<Uri> HttpAddresses(IServiceProvider services) => HttpEndpoints.Addresses(services);

    /// <summary>The OTEL_* variables, as the SDK reads them from configuration.</summary>
    private static IEnumerable<KeyValuePair<string, string?>> OpenTelemetryVariables(Func<string, string?>? environment)
    {
        foreach (var name in Environment.GetEnvironmentVariables().Keys.OfType<string>().Where(n => n.StartsWith("OTEL_", StringComparison.Ordinal)))
        {
            yield return new(name, environment is null ? Environment.GetEnvironmentVariable(name) : environment(name));
        }
    }

    /// <summary>
    /// When the Service Control Manager started the process (and only then): the host reports start and stop to it,
    /// and warnings and errors also go to the Application Event Log under the source <see cref="EventLogSource"/>
    /// (deploy/windows/install.ps1 registers it; the service's virtual account could not). Console and Log:File
    /// logging stay as they are. Anywhere else this does nothing.
    /// </summary>
    private static void AddWindowsService(IHostApplicationBuilder builder)
    {
        builder.Services.AddWindowsService(o => o.ServiceName = EventLogSource);
        if (OperatingSystem.IsWindows())
        {
            ConfigureEventLog(builder);
        }
    }

    [System.Runtime.Versioning.SupportedOSPlatform("windows")]
    private static void ConfigureEventLog(IHostApplicationBuilder builder)
    {
        builder.Services.Configure<Microsoft.Extensions.Logging.EventLog.EventLogSettings>(s => s.SourceName = EventLogSource);
        builder.Logging.AddFilter<Microsoft.Extensions.Logging.EventLog.EventLogLoggerProvider>(null, LogLevel.Warning);
    }

    /// <summary>The Event Log source the Windows service writes under.</summary>
    public const string EventLogSource = "LogFlushMonitor";
}
