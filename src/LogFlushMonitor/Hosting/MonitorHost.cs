using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Health;
using LogFlushMonitor.Core.Metrics;
using LogFlushMonitor.Core.Pipeline;
using LogFlushMonitor.Simulation;
using LogFlushMonitor.Sources;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.Options;
using Serilog.Extensions.Logging;

namespace LogFlushMonitor.Hosting;

/// <summary>Builds the worker host behind <c>logflushmonitor run</c>.</summary>
public static class MonitorHost
{
    /// <summary>Prefix of environment variables read as configuration (LOGFLUSHMONITOR__Http__Urls).</summary>
    public const string EnvironmentPrefix = "LOGFLUSHMONITOR__";

    /// <summary>The configuration sources every command reads, lowest precedence first.</summary>
    public static IConfigurationBuilder AddConfigurationSources(IConfigurationBuilder configuration, string environmentName, string[] configArgs) =>
        configuration
            .AddJsonFile(Path.Combine(AppContext.BaseDirectory, "appsettings.json"), optional: true)
            .AddJsonFile(Path.Combine(AppContext.BaseDirectory, $"appsettings.{environmentName}.json"), optional: true)
            .AddJsonFile(Path.Combine(Environment.CurrentDirectory, "appsettings.json"), optional: true)
            .AddJsonFile(Path.Combine(Environment.CurrentDirectory, $"appsettings.{environmentName}.json"), optional: true)
            .AddEnvironmentVariables(EnvironmentPrefix)
            .AddCommandLine(configArgs);

    /// <summary>
    /// Builds the host. Configuration, lowest precedence first: appsettings.json beside the executable and
    /// in the working directory, appsettings.{Environment}.json, environment variables, <paramref name="configArgs"/>
    /// (<c>--Section:Key=value</c>), then <paramref name="overrides"/> (from command-line options such as --simulate).
    /// </summary>
    public static IHost Build(string[] configArgs, IReadOnlyDictionary<string, string?> overrides, Action<IServiceCollection>? configureServices = null)
    {
        var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings
        {
            DisableDefaults = true,
            ContentRootPath = AppContext.BaseDirectory,
            EnvironmentName = Environment.GetEnvironmentVariable("DOTNET_ENVIRONMENT") ?? Environments.Production,
        });
        AddConfigurationSources(builder.Configuration, builder.Environment.EnvironmentName, configArgs).AddInMemoryCollection(overrides);

        // Strict binding: every value must convert before anything binds (the binder would throw, or drop a list
        // element); unknown keys are logged as soon as the log exists.
        var check = ConfigurationCheck.Inspect(builder.Configuration);
        if (check.Errors.Count > 0)
        {
            throw new ConfigurationException(check.Errors, check.Warnings);
        }

        // The logger is built before the options are validated: what would make it (or a service) throw is checked now.
        var logOptions = builder.Configuration.GetSection("Log").Get<LogOptions>() ?? new LogOptions();
        if (MonitorOptionsValidator.LogProblems(logOptions) is { Count: > 0 } logProblems)
        {
            throw new ConfigurationException(logProblems, check.Warnings);
        }

        builder.Logging.ClearProviders();
        var logFailures = new LogFileFailures(logOptions.File);
        builder.Services.AddSingleton(logFailures);
        var logProvider = new SerilogLoggerProvider(Logging.Create(builder.Configuration, logOptions, logFailures), dispose: true);
        builder.Logging.AddProvider(new StartupFailureLogFilter(logProvider));
        ConfigurationWarnings.Log(logProvider.CreateLogger(typeof(ConfigurationCheck).FullName!), check.Warnings);
        logProvider.CreateLogger(typeof(MallocTuning).FullName!).LogDebug("{Malloc}", MallocTuning.Describe(MallocTuning.Apply(Environment.GetEnvironmentVariable)));
        AddWindowsService(builder);

        var services = builder.Services;
        services.AddOptions<MonitorOptions>().Bind(builder.Configuration).ValidateOnStart();
        services.AddSingleton(OtlpEnvironment.Process);
        services.AddSingleton<IValidateOptions<MonitorOptions>>(sp => new MonitorOptionsValidator(SimulationScenarios.Names, sp.GetRequiredService<OtlpEnvironment>().Read));
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
            sp.GetRequiredService<AgreementLog>().Report));
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
