using Microsoft.Extensions.Logging;

namespace LogFlushMonitor.SqlServer.Streaming;

/// <summary>Log messages of the XE session, stream and histogram sources (event ids 5100-5199). No connection strings here.</summary>
internal static partial class XeLog
{
    [LoggerMessage(5101, LogLevel.Information, "Instance {Instance}: created event session {Session}")]
    public static partial void SessionCreated(ILogger logger, string instance, string session);

    [LoggerMessage(5102, LogLevel.Information, "Instance {Instance}: started event session {Session} (it was stopped)")]
    public static partial void SessionStarted(ILogger logger, string instance, string session);

    [LoggerMessage(5103, LogLevel.Information, "Instance {Instance}: stopped event session {Session}")]
    public static partial void SessionStopped(ILogger logger, string instance, string session);

    [LoggerMessage(5104, LogLevel.Information, "Instance {Instance}: dropped event session {Session}")]
    public static partial void SessionDropped(ILogger logger, string instance, string session);

    [LoggerMessage(5105, LogLevel.Warning, "Instance {Instance}: could not stop or drop event session {Session} at shutdown ({ErrorKind})")]
    public static partial void SessionCleanupFailed(ILogger logger, string instance, string session, string errorKind);

    [LoggerMessage(5106, LogLevel.Information, "Instance {Instance}: XE capabilities: wait event {WaitEvent}, WRITELOG keys {WriteLogKeys}, flush complete {FlushComplete}, wait duration unit {WaitUnit}")]
    public static partial void Capabilities(ILogger logger, string instance, string waitEvent, string writeLogKeys, bool flushComplete, string waitUnit);

    [LoggerMessage(5107, LogLevel.Warning, "Instance {Instance}: IncludeDatabases names {Count} database(s), none of which exists; the session will capture nothing until they do and the monitor reconnects")]
    public static partial void NoIncludedDatabase(ILogger logger, string instance, int count);

    [LoggerMessage(5110, LogLevel.Information, "Instance {Instance}: reading the live stream of session {Session} (connection {Connection})")]
    public static partial void StreamConnected(ILogger logger, string instance, string session, long connection);

    [LoggerMessage(5116, LogLevel.Warning, "Instance {Instance}: a live-stream row was skipped and counted as malformed ({Problem}): type {Type}, {Length} bytes, starting {FirstBytes}; further ones are only counted (sqlserver.monitor.events.lost, loss.kind=malformed)")]
    public static partial void RowSkipped(ILogger logger, string instance, int type, int length, string firstBytes, string problem);

    [LoggerMessage(5123, LogLevel.Warning, "Instance {Instance}: {Count} live-stream event(s) carried an event_sequence number already seen (a buffer sent twice) or one far past any the session could have numbered, and were dropped and counted as malformed; further ones are only counted (sqlserver.monitor.events.lost, loss.kind=malformed)")]
    public static partial void SequenceDuplicates(ILogger logger, string instance, long count);

    [LoggerMessage(5117, LogLevel.Information, "Instance {Instance}: {Decision}")]
    public static partial void UnitSettled(ILogger logger, string instance, string decision);

    [LoggerMessage(5114, LogLevel.Warning, "Instance {Instance}: the server ended the live stream (session stopped or dropped?)")]
    public static partial void StreamEnded(ILogger logger, string instance);

    [LoggerMessage(5115, LogLevel.Warning, "Instance {Instance}: the server disconnected the stream as too slow (25726) {Count} times within {Window}; falling back to histogram mode")]
    public static partial void FellBack(ILogger logger, string instance, int count, TimeSpan window);

    [LoggerMessage(5118, LogLevel.Warning, "Instance {Instance}: the live stream stalled ({Reason}): closing the connection to read the stream again (sqlserver.monitor.errors, error.type=stalled)")]
    public static partial void StreamStalled(ILogger logger, string instance, string reason);

    [LoggerMessage(5120, LogLevel.Warning, "Instance {Instance}: histogram target of session {Session} is truncated (more distinct write sizes than slots); counts are incomplete")]
    public static partial void HistogramTruncated(ILogger logger, string instance, string session);

    [LoggerMessage(5122, LogLevel.Information, "Instance {Instance}: histogram mode with {Count} session(s) ({Scope})")]
    public static partial void HistogramMode(ILogger logger, string instance, int count, string scope);
}
