using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.SqlServer.Connections;

/// <summary>
/// The one way to one configured SQL Server instance (as Npgsql's data source is to PostgreSQL): its connection string,
/// resolved once from the instance's settings and given its connect timeout, and every connection opened to it. <c>run</c>
/// (through <see cref="SqlServerInstance"/>), <c>check</c>, <c>check --capture</c> and <c>workload</c> all open their
/// connections here; nothing else resolves a connection string. The string is a secret: it is never logged or printed
/// (<see cref="Target"/> says where it points).
/// </summary>
public sealed class SqlServerDataSource
{
    private SqlServerDataSource(SqlServerInstanceOptions options, string resolved, TimeSpan configuredTimeout)
    {
        Options = options;
        var builder = new SqlConnectionStringBuilder(resolved);
        // A Connect Timeout written into the connection string is the operator's choice for this server: it is kept, and
        // says so (ConnectTimeoutNote). Otherwise the fleet's Sources:SqlServer:ConnectTimeout applies.
        var written = builder.ShouldSerialize("Connect Timeout");
        ConnectTimeout = written ? TimeSpan.FromSeconds(builder.ConnectTimeout) : TimeSpan.FromSeconds(Math.Max(1, (int)Math.Ceiling(configuredTimeout.TotalSeconds)));
        ConnectTimeoutNote = written && ConnectTimeout != TimeSpan.FromSeconds(Math.Max(1, (int)Math.Ceiling(configuredTimeout.TotalSeconds)))
            ? $"the connection string sets Connect Timeout={builder.ConnectTimeout}, which is used for {options.Name} instead of Sources:SqlServer:ConnectTimeout ({configuredTimeout})"
            : null;
        builder.ConnectTimeout = (int)ConnectTimeout.TotalSeconds;
        ConnectionString = builder.ConnectionString;
        Target = ConnectionStrings.Describe(ConnectionString) + (written ? $", connect timeout {builder.ConnectTimeout} s (the connection string's)" : "");
    }

    /// <summary>The instance's settings.</summary>
    public SqlServerInstanceOptions Options { get; }

    /// <summary>The instance's name (sqlserver.instance.name).</summary>
    public string Name => Options.Name;

    /// <summary>Where the connection string points (server, database, encryption), safe to print.</summary>
    public string Target { get; }

    /// <summary>How long opening a connection may take: the connection string's own Connect Timeout, else the fleet's.</summary>
    public TimeSpan ConnectTimeout { get; }

    /// <summary>
    /// When the connection string's own Connect Timeout differs from Sources:SqlServer:ConnectTimeout: a sentence that says
    /// which one is used (for <c>check</c> and the log); null otherwise.
    /// </summary>
    public string? ConnectTimeoutNote { get; }

    /// <summary>The resolved connection string with its connect timeout: a secret, never logged.</summary>
    internal string ConnectionString { get; }

    /// <summary>
    /// The data source of <paramref name="options"/>: the connection string is read (from the setting it names) and parsed
    /// now. Throws <see cref="InvalidOperationException"/> naming the setting, never the value, when it cannot be.
    /// </summary>
    /// <param name="options">The instance's settings.</param>
    /// <param name="fleet">The fleet's settings (the connect timeout).</param>
    /// <param name="environment">Environment lookup for ConnectionStringEnvironmentVariable (tests replace it).</param>
    public static SqlServerDataSource Create(SqlServerInstanceOptions options, SqlServerSourceOptions fleet, Func<string, string?>? environment = null)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(fleet);
        return new SqlServerDataSource(options, ConnectionStrings.Resolve(options, environment), fleet.ConnectTimeout);
    }

    /// <summary>
    /// The data source of one connection string given as such (<c>workload --connection-string-env</c>, tests): named
    /// <paramref name="name"/>, with the fleet's default connect timeout unless the string sets its own.
    /// </summary>
    public static SqlServerDataSource FromConnectionString(string name, string connectionString) =>
        Create(new SqlServerInstanceOptions { Name = name, ConnectionString = connectionString }, new SqlServerSourceOptions());

    /// <summary>Opens a connection within <see cref="ConnectTimeout"/>; cancellation ends the wait at once (<see cref="SqlConnections.OpenAsync(string, CancellationToken)"/>).</summary>
    public Task<SqlConnection> OpenAsync(CancellationToken cancellationToken) => SqlConnections.OpenAsync(ConnectionString, cancellationToken);

    /// <summary>As <see cref="OpenAsync(CancellationToken)"/>, telling <paramref name="reachable"/> whether the server answered.</summary>
    public Task<SqlConnection> OpenAsync(Action<bool> reachable, CancellationToken cancellationToken) => SqlConnections.OpenAsync(ConnectionString, reachable, cancellationToken);

    /// <summary>Opens a connection that may take at most <paramref name="connectTimeout"/> (a shutdown's cleanup, check's bounded probe).</summary>
    public Task<SqlConnection> OpenAsync(TimeSpan connectTimeout, CancellationToken cancellationToken) =>
        SqlConnections.OpenAsync(SqlConnections.WithConnectTimeout(ConnectionString, connectTimeout < ConnectTimeout ? connectTimeout : ConnectTimeout), cancellationToken);

    /// <summary>
    /// The connection string for a program of the monitor's own that acts on the server beside it (the workload: its own
    /// database and application name), derived from this one: a secret, for that program's connections only.
    /// </summary>
    /// <param name="database">The database to connect to.</param>
    /// <param name="applicationName">What the server shows as program_name.</param>
    internal string For(string database, string applicationName) =>
        new SqlConnectionStringBuilder(ConnectionString) { InitialCatalog = database, ApplicationName = applicationName }.ConnectionString;

    /// <summary>The login the connection string names (User ID), or null for integrated security: for <c>check</c>'s advice.</summary>
    public string? UserId => new SqlConnectionStringBuilder(ConnectionString).UserID is { Length: > 0 } user ? user : null;

    /// <summary>The Encrypt option the connection string asks for.</summary>
    public SqlConnectionEncryptOption Encrypt => new SqlConnectionStringBuilder(ConnectionString).Encrypt;
}
