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
                raw = BoundedFile.ReadAllText(instance.ConnectionStringFile!, BoundedFile.ConnectionStringMaxBytes).Trim();
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                // BoundedFile's own messages name the file and what is wrong with it; others are told by type (their
                // text could quote the file's content).
                var why = BoundedFile.Problem(instance.ConnectionStringFile!, BoundedFile.ConnectionStringMaxBytes) ?? e.GetType().Name;
                throw new InvalidOperationException($"Instance '{instance.Name}': cannot read ConnectionStringFile {instance.ConnectionStringFile}: it {why}.", e);
            }
        }

        var builder = Parse(raw, instance.Name, Origin(instance));
        builder.ApplicationName = ApplicationName;
        return builder.ConnectionString;
    }

    /// <summary>
    /// Parses <paramref name="raw"/> keyword by keyword, so that a value SqlClient cannot use (<c>Connect Timeout=abc</c>,
    /// a number past its range) is named by its keyword. SqlClient's own exceptions quote the value, which may be the
    /// password: none of their text is passed on. Throws <see cref="InvalidOperationException"/> naming the instance and
    /// the keyword, never a value.
    /// </summary>
    /// <param name="raw">The connection string.</param>
    /// <param name="instance">The instance's name, for messages.</param>
    /// <param name="origin">Where the string came from, for messages (e.g. "the environment variable SQL_PROD").</param>
    public static SqlConnectionStringBuilder Parse(string raw, string? instance, string origin = "ConnectionString")
    {
        var generic = new System.Data.Common.DbConnectionStringBuilder();
        try
        {
            generic.ConnectionString = raw;
        }
        catch (ArgumentException)
        {
            throw new InvalidOperationException(
                $"Instance '{instance}': the connection string in {origin} is not a list of keyword=value pairs separated by ';' (a value holding ';' or a quote must be quoted). Its text is not shown: it may hold a password.");
        }

        var builder = new SqlConnectionStringBuilder();
        foreach (string keyword in generic.Keys)
        {
            try
            {
                builder[keyword] = generic[keyword];
            }
            catch (ArgumentException) when (!builder.ContainsKey(keyword))
            {
                throw new InvalidOperationException(
                    $"Instance '{instance}': the connection string keyword '{keyword}' (in {origin}) is not one Microsoft.Data.SqlClient knows. Check its spelling (e.g. 'Connect Timeout', 'TrustServerCertificate').");
            }
            catch (Exception e) when (e is ArgumentException or FormatException or OverflowException or InvalidCastException)
            {
                throw new InvalidOperationException(
                    $"Instance '{instance}': the value of the connection string keyword '{keyword}' (in {origin}) is not one Microsoft.Data.SqlClient accepts ({e.GetType().Name}; the value is not shown). "
                    + "Give it the form that keyword takes, e.g. a whole number of seconds for 'Connect Timeout', true or false for 'TrustServerCertificate'.");
            }
        }

        return builder;
    }

    /// <summary>Which setting an instance's connection string comes from, for messages.</summary>
    private static string Origin(SqlServerInstanceOptions instance) =>
        !string.IsNullOrWhiteSpace(instance.ConnectionString) ? "ConnectionString"
        : !string.IsNullOrWhiteSpace(instance.ConnectionStringEnvironmentVariable) ? $"the environment variable {instance.ConnectionStringEnvironmentVariable} (ConnectionStringEnvironmentVariable)"
        : $"the ConnectionStringFile {instance.ConnectionStringFile}";

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
