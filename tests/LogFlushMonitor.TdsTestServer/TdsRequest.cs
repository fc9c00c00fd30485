namespace LogFlushMonitor.TdsTestServer;

/// <summary>How a request reached the server.</summary>
public enum TdsRequestKind
{
    /// <summary>A SQLBatch message: plain statement text.</summary>
    Batch,

    /// <summary>An RPC request (sp_executesql or a named procedure).</summary>
    Rpc,

    /// <summary>A transaction manager request (SqlConnection.BeginTransaction, Commit, Rollback), answered by the server itself.</summary>
    Transaction,
}

/// <summary>One statement the server received, as recorded in <see cref="TdsTestServer.Requests"/>.</summary>
/// <param name="ConnectionId">Server-side connection id.</param>
/// <param name="Kind">Batch or RPC.</param>
/// <param name="Text">Batch text, the sp_executesql statement, the procedure name for other RPCs, or e.g. "BEGIN TRANSACTION".</param>
/// <param name="ProcedureName">RPC procedure name (sp_executesql for ProcID 10), null for batches.</param>
/// <param name="ParameterDeclarations">sp_executesql's declaration string, e.g. "@id int", or null.</param>
/// <param name="Parameters">Parameters by wire name (with '@'), as .NET values; DBNull is null.</param>
/// <param name="Timestamp">When the request was read.</param>
/// <param name="Login">The login of the connection that sent it.</param>
public sealed record TdsRequest(
    int ConnectionId,
    TdsRequestKind Kind,
    string Text,
    string? ProcedureName,
    string? ParameterDeclarations,
    IReadOnlyDictionary<string, object?> Parameters,
    DateTimeOffset Timestamp,
    TdsLogin Login)
{
    /// <summary>A parameter's value by name, with or without the leading '@'.</summary>
    public object? Parameter(string name) =>
        Parameters.TryGetValue(name.StartsWith('@') ? name : "@" + name, out var value)
            ? value
            : throw new KeyNotFoundException($"The request has no parameter {name}.");
}
