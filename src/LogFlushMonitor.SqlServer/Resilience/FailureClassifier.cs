using System.Diagnostics;
using System.Net.Sockets;
using LogFlushMonitor.SqlServer.Connections;
using LogFlushMonitor.SqlServer.Sessions;
using LogFlushMonitor.SqlServer.Streaming;
using LogFlushMonitor.XEvent;
using Microsoft.Data.SqlClient;

namespace LogFlushMonitor.SqlServer.Resilience;

/// <summary>How a failure is retried.</summary>
public enum FailureClass
{
    /// <summary>Likely to go away by itself (a lost connection, a timeout, a busy server): retried with growing backoff.</summary>
    Transient,

    /// <summary>Needs someone to act (a login, a permission, a certificate): reported, retried only at the backoff's cap.</summary>
    Persistent,

    /// <summary>A bug: logged once with its stack trace, counted, and the source restarted no faster than the backoff.</summary>
    Unexpected,
}

/// <summary>What a failure is: its exported kind (error.type), how it is retried, and the SQL error number behind it (0 if none).</summary>
public readonly record struct SourceFailure(string Kind, FailureClass Class, int Number);

/// <summary>
/// Classifies failures by SQL error number (every error of a SqlException, not only the first) and exception type,
/// never by message text, which changes with the server's language and version.
/// </summary>
public static class FailureClassifier
{
    private static readonly HashSet<int> LoginNumbers = [18456, 18452, 18470, 18486, 18487, 18488, 4060];

    private static readonly HashSet<int> PermissionNumbers = [229, 230, 262, 297, 300, 15247];

    /// <summary>Refused, unknown host, no route: nothing answered (10061 refused, 11001/11004 host not found, 10065 no route, 53/40/26 not found).</summary>
    private static readonly HashSet<int> UnreachableNumbers = [10061, 11001, 11004, 10065, 53, 40, 26];

    /// <summary>An established connection broke (64, 121, 233, 10053, 10054, 10060 and SqlClient's -1, 2).</summary>
    private static readonly HashSet<int> DisconnectedNumbers = [-1, 2, 64, 121, 233, 10053, 10054, 10060];

    /// <summary>
    /// Azure SQL and SQL Server's well-known transient errors: 40613 database unavailable, 40197 service error
    /// (failover), 40501 service busy, 49918-49920 not enough resources, 4221 read-only secondary not ready, 10928/10929
    /// resource limits, 40540/40143 service errors, 1205 deadlock victim, 1204/1222 lock resources or timeout.
    /// </summary>
    private static readonly HashSet<int> BusyNumbers = [40613, 40197, 40501, 49918, 49919, 49920, 4221, 10928, 10929, 40540, 40143, 1205, 1204, 1222];

    /// <summary>"Cannot alter the event session, because it does not exist or you do not have permission": re-created at the next attempt.</summary>
    private const int SessionDoesNotExist = 15151;

    /// <summary>The server dropped our live stream: the session's dispatcher found us too slow (docs/collection-modes.md; Microsoft, "CREATE EVENT SESSION").</summary>
    private const int StreamTooSlow = 25726;

    /// <summary>SqlClient's number for a command or login that ran out of time.</summary>
    private const int TimeoutNumber = -2;

    /// <summary>Classifies <paramref name="e"/>; <paramref name="connectionLost"/> says the caller saw its connection close.</summary>
    public static SourceFailure Classify(Exception e, bool connectionLost = false)
    {
        ArgumentNullException.ThrowIfNull(e);
        return e switch
        {
            SqlException s => Classify(s),
            SessionMissingException => new(SqlErrorKinds.SessionMissing, FailureClass.Transient, 0),
            StreamStalledException => new(SqlErrorKinds.Stalled, FailureClass.Transient, 0),
            ProtocolException => new(SqlErrorKinds.Protocol, FailureClass.Persistent, 0),
            // An answer no server gives (a database id twice, a NULL where the view has none): the statement is named.
            Core.Signals.StatementAnswerException => new(SqlErrorKinds.Protocol, FailureClass.Persistent, 0),
            TimeoutException => new(SqlErrorKinds.Timeout, FailureClass.Transient, 0),
            SocketException so => new(IsUnreachable(so) ? SqlErrorKinds.Unreachable : SqlErrorKinds.Disconnected, FailureClass.Transient, 0),
            IOException => new(SqlErrorKinds.Disconnected, FailureClass.Transient, 0),
            // What the server sent cannot be read: an unknown format version, a damaged buffer or XML, a buffer over the limit.
            XelUnsupportedVersionException or NotSupportedException => new(SqlErrorKinds.Unsupported, FailureClass.Persistent, 0),
            XelFormatException or InvalidDataException => new(SqlErrorKinds.Protocol, FailureClass.Persistent, 0),
            _ when connectionLost => new(SqlErrorKinds.Disconnected, FailureClass.Transient, 0),
            _ when IsThrownBySqlClient(e) => new(SqlErrorKinds.Protocol, FailureClass.Persistent, 0),
            _ => new(SqlErrorKinds.Unexpected, FailureClass.Unexpected, 0),
        };
    }

    /// <summary>Classifies a SqlException by the numbers of all its errors, the most telling first.</summary>
    public static SourceFailure Classify(SqlException e)
    {
        ArgumentNullException.ThrowIfNull(e);
        var numbers = e.Errors.Cast<SqlError>().Select(x => x.Number).Append(e.Number).ToArray();
        int? First(IReadOnlySet<int> set) => numbers.Any(set.Contains) ? numbers.First(set.Contains) : null;

        if (numbers.Contains(StreamTooSlow))
        {
            return new(SqlErrorKinds.StreamTooSlow, FailureClass.Transient, StreamTooSlow);
        }

        if (ConnectionSecurity.IsTlsFailure(e))
        {
            return new(SqlErrorKinds.Tls, FailureClass.Persistent, e.Number);
        }

        var (kind, cls, number) =
            First(LoginNumbers) is { } login ? (SqlErrorKinds.LoginFailed, FailureClass.Persistent, login)
            : First(PermissionNumbers) is { } permission ? (SqlErrorKinds.Permission, FailureClass.Persistent, permission)
            : numbers.Contains(TimeoutNumber) ? (SqlErrorKinds.Timeout, FailureClass.Transient, TimeoutNumber)
            : numbers.Contains(SessionDoesNotExist) ? (SqlErrorKinds.SessionMissing, FailureClass.Transient, SessionDoesNotExist)
            : First(BusyNumbers) is { } busy ? (SqlErrorKinds.ServerBusy, FailureClass.Transient, busy)
            : First(UnreachableNumbers) is { } unreachable ? (SqlErrorKinds.Unreachable, FailureClass.Transient, unreachable)
            : Inner<SocketException>(e) is { } so && IsUnreachable(so) ? (SqlErrorKinds.Unreachable, FailureClass.Transient, e.Number)
            // A fatal error before SqlClient had a connection id: no TCP connection at all (a refused port comes as error 0
            // wrapping an empty socket error on Linux).
            : e.Class >= 20 && e.ClientConnectionId == Guid.Empty ? (SqlErrorKinds.Unreachable, FailureClass.Transient, e.Number)
            : First(DisconnectedNumbers) is { } disconnected ? (SqlErrorKinds.Disconnected, FailureClass.Transient, disconnected)
            // Severity 20 and above closes the connection: the network or the server went away.
            : e.Class >= 20 ? (SqlErrorKinds.Disconnected, FailureClass.Transient, e.Number)
            : (SqlErrorKinds.Other, FailureClass.Persistent, e.Number);
        return new(kind, cls, number);
    }

    private static bool IsUnreachable(SocketException e) => e.SocketErrorCode is SocketError.ConnectionRefused or SocketError.HostNotFound
        or SocketError.HostUnreachable or SocketError.NetworkUnreachable or SocketError.TryAgain or SocketError.NoData or SocketError.AddressNotAvailable;

    private static T? Inner<T>(Exception e)
        where T : Exception
    {
        for (var x = e.InnerException; x is not null; x = x.InnerException)
        {
            if (x is T t)
            {
                return t;
            }
        }

        return null;
    }

    /// <summary>
    /// SqlClient throws InvalidOperationException ("internal connection fatal error"), IndexOutOfRangeException and the
    /// like when what it reads is not TDS: thrown from its own code (the first frame outside the runtime library, which
    /// raises the index errors of its spans), that means the server's bytes, not ours.
    /// </summary>
    private static bool IsThrownBySqlClient(Exception e)
    {
        // DiagnosticMethodInfo (not StackFrame.GetMethod) works in the trimmed and NativeAOT builds: it needs no reflection.
        foreach (var frame in new StackTrace(e, fNeedFileInfo: false).GetFrames())
        {
            var type = DiagnosticMethodInfo.Create(frame)?.DeclaringTypeName;
            if (type is not null && !type.StartsWith("System.", StringComparison.Ordinal))
            {
                return type.StartsWith("Microsoft.Data.SqlClient.", StringComparison.Ordinal);
            }
        }

        return false;
    }
}
