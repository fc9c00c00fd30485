using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.SqlServer.Connections;

/// <summary>Opens every connection the monitor makes, so that each honours its connect timeout and cancellation.</summary>
public static class SqlConnections
{
    /// <summary>
    /// <paramref name="connectionString"/> with Connect Timeout set to <paramref name="connectTimeout"/>, in whole
    /// seconds rounded up (SqlClient's unit; 0 would mean wait for ever).
    /// </summary>
    public static string WithConnectTimeout(string connectionString, TimeSpan connectTimeout) =>
        new SqlConnectionStringBuilder(connectionString) { ConnectTimeout = Math.Max(1, (int)Math.Ceiling(connectTimeout.TotalSeconds)) }.ConnectionString;

    /// <summary>
    /// <see cref="OpenAsync(string, CancellationToken)"/>, telling <paramref name="reachable"/> whether the server could
    /// be reached (false when opening failed; nothing when it was cancelled).
    /// </summary>
    public static async Task<SqlConnection> OpenAsync(string connectionString, Action<bool> reachable, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(reachable);
        SqlConnection connection;
        try
        {
            connection = await OpenAsync(connectionString, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception) when (!cancellationToken.IsCancellationRequested)
        {
            reachable(false);
            throw;
        }

        reachable(true);
        return connection;
    }

    /// <summary>
    /// Opens a connection. Cancellation ends the wait at once: SqlClient goes on retrying a refused or silent server
    /// until its connect timeout even when cancelled, so the attempt is left to end by itself and its connection is
    /// disposed then. Shutdown never waits for a dead server.
    /// </summary>
    public static async Task<SqlConnection> OpenAsync(string connectionString, CancellationToken cancellationToken)
    {
        var connection = new SqlConnection(connectionString);
        var open = connection.OpenAsync(cancellationToken);
        try
        {
            await open.WaitAsync(cancellationToken).ConfigureAwait(false);
            return connection;
        }
        catch (OperationCanceledException) when (!open.IsCompleted)
        {
            _ = open.ContinueWith(static (t, c) =>
            {
                _ = t.Exception; // observed: the attempt's own failure is of no interest any more
                ((SqlConnection)c!).Dispose();
            }, connection, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
            throw;
        }
        catch (Exception e) when (e is InvalidOperationException or IndexOutOfRangeException or ArgumentOutOfRangeException or OverflowException or InvalidCastException)
        {
            // SqlClient read something that is not TDS and failed inside its parser ("internal connection fatal error",
            // an index past the end of a packet). Client-side limits (NotSupportedException) are not wrapped.
            await connection.DisposeAsync().ConfigureAwait(false);
            throw new ProtocolException($"The server's answer to the connection attempt is not TDS ({e.GetType().Name} in SqlClient).", e);
        }
        catch
        {
            await connection.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }
}

/// <summary>The server answered with something SqlClient could not read as TDS: another service on that port, or a broken proxy.</summary>
public sealed class ProtocolException : Exception
{
    /// <summary>Creates the exception.</summary>
    public ProtocolException()
    {
    }

    /// <summary>Creates the exception with a message.</summary>
    public ProtocolException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception with a message and SqlClient's own exception.</summary>
    public ProtocolException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
