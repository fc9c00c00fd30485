using LogFlushMonitor.SqlServer.Fleet;
using LogFlushMonitor.SqlServer.Hosting;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.Options;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>Registers the SQL Server source in a host.</summary>
public static class SqlServerServiceCollectionExtensions
{
    /// <summary>
    /// Binds <c>Sources:SqlServer</c> of <paramref name="configuration"/>, validates it when the host starts (every
    /// setting, then every connection string: a failure names the setting, never a secret) and runs the instances of
    /// this replica's shard as a hosted service. It needs a <c>SamplePipeline</c>, a <c>SourceHealth</c> and a
    /// <see cref="TimeProvider"/> in the container; an <c>ISourceReadiness</c> and an <c>ISourceShutdown</c> when the
    /// host offers them.
    /// </summary>
    public static IServiceCollection AddSqlServerSource(this IServiceCollection services, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(configuration);
        services.AddOptions<LogFlushMonitor.SqlServer.SqlServerSourceOptions>().Bind(configuration.GetSection(SqlServerOptionsValidator.Section)).ValidateOnStart();
        services.AddSingleton<IValidateOptions<LogFlushMonitor.SqlServer.SqlServerSourceOptions>, SqlServerOptionsValidation>();
        services.AddHostedService<SqlServerSourceService>();
        return services;
    }

    /// <summary>
    /// Runs the instances of <paramref name="options"/> (bound and validated by the caller once, as <c>run</c>'s
    /// configuration loader does: the host and the source read that one instance) as a hosted service, with the same
    /// needs as the other overload.
    /// </summary>
    public static IServiceCollection AddSqlServerSource(this IServiceCollection services, LogFlushMonitor.SqlServer.SqlServerSourceOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        services.AddSingleton(Options.Options.Create(options));
        services.AddHostedService<SqlServerSourceService>();
        return services;
    }
}

/// <summary>Runs <see cref="SqlServerOptionsValidator"/> (the settings, then every connection string) when the host starts; each failure names its setting.</summary>
internal sealed class SqlServerOptionsValidation : IValidateOptions<LogFlushMonitor.SqlServer.SqlServerSourceOptions>
{
    public ValidateOptionsResult Validate(string? name, LogFlushMonitor.SqlServer.SqlServerSourceOptions options)
    {
        var problems = SqlServerOptionsValidator.Validate(options);
        if (problems.Count == 0)
        {
            // Every connection string is read and parsed before anything starts: a bad one is exit 2, not an instance
            // that never starts while readiness waits for it.
            problems = SqlServerOptionsValidator.ValidateConnections(options);
        }

        return problems.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(problems);
    }
}
