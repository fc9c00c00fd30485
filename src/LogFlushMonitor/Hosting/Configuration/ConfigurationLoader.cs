using LogFlushMonitor.Configuration;
using LogFlushMonitor.Simulation;
using LogFlushMonitor.SqlServer;
using LogFlushMonitor.SqlServer.Fleet;
using Microsoft.Extensions.Configuration;

namespace LogFlushMonitor.Hosting;

/// <summary>What a command reads of the configuration.</summary>
internal enum ConfigurationScope
{
    /// <summary>Everything (<c>run</c>).</summary>
    Service,

    /// <summary>Sources:SqlServer only (<c>check</c>, <c>workload</c>): the rest of the file may be for another version or host.</summary>
    SqlServer,
}

/// <summary>The configuration a command runs with: the merged sources, the options bound and valid, and what was ignored or risky.</summary>
/// <param name="Configuration">The merged configuration sources.</param>
/// <param name="Options">The options, bound and validated (for <see cref="ConfigurationScope.SqlServer"/>, only Sources:SqlServer is bound).</param>
/// <param name="Warnings">Unknown keys, a secret file others can read, OTLP variables replaced by a default: said, not fatal.</param>
internal sealed record LoadedConfiguration(IConfiguration Configuration, MonitorOptions Options, IReadOnlyList<string> Warnings);

/// <summary>
/// The one way every command reads its configuration: the same sources (<see cref="AddSources"/>), the form of every
/// value checked before anything binds (<see cref="ConfigurationCheck"/>), binding through generated code, then every
/// rule (the attributes on the options types and the validators' rules between settings, the connection strings read and
/// parsed). A problem of any kind is a <see cref="ConfigurationException"/> listing them all; the command prints it and
/// exits 2 (<see cref="WriteAsync"/>).
/// </summary>
internal static partial class ConfigurationLoader
{
    /// <summary>The environment name (appsettings.{Environment}.json): DOTNET_ENVIRONMENT, Production by default.</summary>
    public static string EnvironmentName => Environment.GetEnvironmentVariable("DOTNET_ENVIRONMENT") ?? Environments.Production;

    /// <summary>
    /// The configuration sources every command reads, lowest precedence first: appsettings.json and
    /// appsettings.{Environment}.json beside the executable, then in the working directory, LOGFLUSHMONITOR__ environment
    /// variables, <paramref name="configArgs"/> (<c>--Section:Key=value</c>), then <paramref name="overrides"/> (a
    /// command's own options, such as --simulate).
    /// </summary>
    public static IConfigurationBuilder AddSources(IConfigurationBuilder configuration, string[] configArgs, IReadOnlyDictionary<string, string?>? overrides = null)
    {
        var environmentName = EnvironmentName;
        configuration
            .AddJsonFile(Path.Combine(AppContext.BaseDirectory, "appsettings.json"), optional: true)
            .AddJsonFile(Path.Combine(AppContext.BaseDirectory, $"appsettings.{environmentName}.json"), optional: true)
            .AddJsonFile(Path.Combine(Environment.CurrentDirectory, "appsettings.json"), optional: true)
            .AddJsonFile(Path.Combine(Environment.CurrentDirectory, $"appsettings.{environmentName}.json"), optional: true)
            .AddEnvironmentVariables(SettingKeys.EnvironmentPrefix)
            .AddCommandLine(configArgs);
        return overrides is null ? configuration : configuration.AddInMemoryCollection(overrides);
    }

    /// <summary>Reads the sources (<see cref="AddSources"/>) and loads them as <see cref="Load(IConfiguration, ConfigurationScope, Func{string, string?})"/> does.</summary>
    public static LoadedConfiguration Load(string[] configArgs, IReadOnlyDictionary<string, string?>? overrides, ConfigurationScope scope, Func<string, string?>? environment = null)
    {
        IConfiguration configuration;
        try
        {
            configuration = AddSources(new ConfigurationBuilder(), configArgs, overrides).Build();
        }
        catch (Exception e) when (e is InvalidDataException or FormatException or IOException)
        {
            throw Unreadable(e);
        }

        return Load(configuration, scope, environment);
    }

    /// <summary>
    /// Checks, binds and validates <paramref name="configuration"/> for <paramref name="scope"/>. Throws
    /// <see cref="ConfigurationException"/> with every problem found (and the warnings, since no log may exist yet).
    /// </summary>
    /// <param name="configuration">The merged sources.</param>
    /// <param name="scope">What the command reads.</param>
    /// <param name="environment">Reads an environment variable (OTEL_* files, connection string variables); the process's by default.</param>
    public static LoadedConfiguration Load(IConfiguration configuration, ConfigurationScope scope, Func<string, string?>? environment = null)
    {
        ArgumentNullException.ThrowIfNull(configuration);
        environment ??= Environment.GetEnvironmentVariable;
        var check = scope == ConfigurationScope.Service
            ? ConfigurationCheck.Inspect(configuration)
            : ConfigurationCheck.InspectSection(configuration, SqlServerOptionsValidator.Section);
        if (check.Errors.Count > 0)
        {
            throw new ConfigurationException(check.Errors, check.Warnings);
        }

        MonitorOptions options;
        try
        {
            options = scope == ConfigurationScope.Service
                ? configuration.Get<MonitorOptions>() ?? new MonitorOptions()
                : new MonitorOptions { Sources = { SqlServer = configuration.GetSection(SqlServerOptionsValidator.Section).Get<SqlServerSourceOptions>() ?? new SqlServerSourceOptions() } };
        }
        catch (InvalidOperationException e)
        {
            throw Unreadable(e);
        }

        var errors = new List<string>();
        var warnings = new List<string>(check.Warnings);
        if (scope == ConfigurationScope.Service)
        {
            var result = new MonitorOptionsValidator(SimulationScenarios.Names, environment).Validate(null, options);
            errors.AddRange(result.Failures ?? []);
            if (options.Exporters.Otlp.Enabled)
            {
                warnings.AddRange(OtlpEnvironmentCheck.Inspect(options.Exporters.Otlp, environment).Warnings);
            }
        }

        // Every connection string is read and parsed before anything starts: a bad one is exit 2, not an instance that
        // never starts while readiness waits for it.
        var sqlServer = SqlServerOptionsValidator.Validate(options.Sources.SqlServer);
        errors.AddRange(sqlServer.Count > 0 ? sqlServer : SqlServerOptionsValidator.ValidateConnections(options.Sources.SqlServer, environment));
        if (errors.Count > 0)
        {
            throw new ConfigurationException([.. errors.Select(e => WithWrittenIndexes(e, configuration))], warnings);
        }

        return new LoadedConfiguration(configuration, options, warnings);
    }

    /// <summary>
    /// A problem with the instance list named by the keys the user wrote: the binder makes <c>Instances:0</c>,
    /// <c>Instances:2</c> and <c>Instances:5</c> into items 0, 1 and 2, and the validators count items, so without this
    /// a lone <c>Instances:5</c> would be reported as <c>Instances:0</c>. The binder takes the children in the order
    /// <see cref="IConfiguration.GetChildren"/> gives (numbers in numeric order), which is the order mapped here.
    /// </summary>
    internal static string WithWrittenIndexes(string problem, IConfiguration configuration)
    {
        const string Prefix = SqlServerOptionsValidator.Section + ":Instances:";
        if (!problem.Contains(Prefix, StringComparison.Ordinal))
        {
            return problem;
        }

        var keys = configuration.GetSection(SqlServerOptionsValidator.Section + ":Instances").GetChildren().Select(c => c.Key).ToList();
        return WrittenIndex().Replace(problem, m =>
            int.TryParse(m.Groups[1].ValueSpan, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out var item) && item < keys.Count
                ? Prefix + keys[item]
                : m.Value);
    }

    [System.Text.RegularExpressions.GeneratedRegex(@"Sources:SqlServer:Instances:(\d+)")]
    private static partial System.Text.RegularExpressions.Regex WrittenIndex();

    /// <summary>
    /// What was ignored first (a mistyped key is often why a setting is missing: "Unknown configuration key
    /// ...ConnectionStringEnvVariable ... Did you mean ...ConnectionStringEnvironmentVariable?" explains the error
    /// "... has no connection string" below it), then "Invalid configuration:" and one line per problem: no stack trace.
    /// </summary>
    public static async Task WriteAsync(ConfigurationException problem, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(problem);
        ArgumentNullException.ThrowIfNull(output);
        await WriteWarningsAsync(problem.Warnings, output).ConfigureAwait(false);
        await output.WriteLineAsync("Invalid configuration:").ConfigureAwait(false);
        foreach (var error in problem.Errors)
        {
            await output.WriteLineAsync("  - " + error).ConfigureAwait(false);
        }
    }

    /// <summary>One "Warning:" line each, for commands that have no log.</summary>
    public static async Task WriteWarningsAsync(IReadOnlyList<string> warnings, TextWriter output)
    {
        ArgumentNullException.ThrowIfNull(warnings);
        ArgumentNullException.ThrowIfNull(output);
        foreach (var warning in warnings)
        {
            await output.WriteLineAsync("Warning: " + warning).ConfigureAwait(false);
        }
    }

    private static ConfigurationException Unreadable(Exception e) =>
        new([$"Configuration could not be read: {LogEscaping.Escape(e.Message)}"], []);
}
