using LogFlushMonitor.SqlServer;
using LogFlushMonitor.SqlServer.Fleet;
using Microsoft.Extensions.Options;

namespace LogFlushMonitor.Sources;

/// <summary>Registers the SQL Server source (Sources:SqlServer) in the host.</summary>
internal static class SqlServerRegistration
{
    /// <summary>Binds and validates Sources:SqlServer at start and adds <see cref="SqlServerSourceService"/>.</summary>
    public static IServiceCollection AddSqlServerSource(this IServiceCollection services)
    {
        services.AddOptions<SqlServerSourceOptions>().BindConfiguration(SqlServerOptionsValidator.Section).ValidateOnStart();
        services.AddSingleton<IValidateOptions<SqlServerSourceOptions>, SqlServerOptionsValidation>();
        services.AddHostedService<SqlServerSourceService>();
        return services;
    }
}

/// <summary>Runs <see cref="SqlServerOptionsValidator"/> (the settings, then every connection string) when the host starts; each failure names its setting.</summary>
internal sealed class SqlServerOptionsValidation : IValidateOptions<SqlServerSourceOptions>
{
    public ValidateOptionsResult Validate(string? name, SqlServerSourceOptions options)
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
