using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.SqlServer.Connections;

/// <summary>
/// Resolves an instance's connection string from configuration, an environment variable or a file, and makes
/// connections with the monitor's application name. The string holds a secret: it is never logged, and
/// <see cref="Describe"/> gives what may be logged instead.
/// </summary>
public static class ConnectionStrings
{
    /// <summary>The application name the server sees (sys.dm_exec_sessions.program_name).</summary>
    public const string ApplicationName = "LogFlushMonitor";

    /// <summary>Resolves the connection string; throws <see cref="InvalidOperationException"/> naming the setting (never the value).</summary>
    public static string Resolve(SqlServerInstanceOptions instance, Func<string, string?>? environment = null)
    {
        environment ??= Environment.GetEnvironmentVariable;
        var given = new[] { instance.ConnectionString, instance.ConnectionStringEnvironmentVariable, instance.ConnectionStringFile }.Count(v => !string.IsNullOrWhiteSpace(v));
        if (given != 1)
        {
            throw new InvalidOperationException(
                $"Instance '{instance.Name}' needs exactly one of ConnectionString, ConnectionStringEnvironmentVariable or ConnectionStringFile ({given} given).");
        }

        string? raw;
        if (!string.IsNullOrWhiteSpace(instance.ConnectionString))
        {
            raw = instance.ConnectionString;
        }
        else if (!string.IsNullOrWhiteSpace(instance.ConnectionStringEnvironmentVariable))
        {
            raw = environment(instance.ConnectionStringEnvironmentVariable!);
            if (string.IsNullOrWhiteSpace(raw))
            {
                throw new InvalidOperationException($"Instance '{instance.Name}': environment variable {instance.ConnectionStringEnvironmentVariable} is not set or empty.");
            }
        }
        else
        {
            try
            {
                raw = File.ReadAllText(instance.ConnectionStringFile!).Trim();
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                throw new InvalidOperationException($"Instance '{instance.Name}': cannot read ConnectionStringFile {instance.ConnectionStringFile}: {e.GetType().Name}.", e);
            }
        }

        SqlConnectionStringBuilder builder;
        try
        {
            builder = new SqlConnectionStringBuilder(raw);
        }
        catch (ArgumentException)
        {
            // The message of this exception may quote the string: do not pass it on.
            throw new InvalidOperationException($"Instance '{instance.Name}': the connection string is not valid (check its keywords).");
        }

        builder.ApplicationName = ApplicationName;
        return builder.ConnectionString;
    }

    /// <summary>What may be logged about a connection string: server, database, user, encryption; never the password.</summary>
    public static string Describe(string connectionString)
    {
        var b = new SqlConnectionStringBuilder(connectionString);
        var user = b.IntegratedSecurity ? "integrated security" : $"user {b.UserID}";
        return $"server {b.DataSource}, database {(string.IsNullOrEmpty(b.InitialCatalog) ? "(default)" : b.InitialCatalog)}, {user}, encrypt {EncryptName(b.Encrypt)}, trust server certificate {b.TrustServerCertificate}";
    }

    /// <summary>The Encrypt setting by the name SqlClient documents (Optional, Mandatory, Strict); its ToString says True/False.</summary>
    public static string EncryptName(SqlConnectionEncryptOption encrypt) =>
        encrypt == SqlConnectionEncryptOption.Strict ? "Strict"
        : encrypt == SqlConnectionEncryptOption.Mandatory ? "Mandatory"
        : "Optional";
}
