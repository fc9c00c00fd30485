using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.TdsTestServer.Tests;

/// <summary>Opens SqlClient connections to a test server.</summary>
internal static class Open
{
    public static async Task<SqlConnection> ConnectionAsync(TdsTestServer server, bool pooling = false)
    {
        var connection = new SqlConnection(server.ConnectionString(pooling: pooling));
        await connection.OpenAsync();
        return connection;
    }
}
