using System.Globalization;
using System.Text;
using LogFlushMonitor.SqlServer.Tests.Scripted;
using LogFlushMonitor.TdsTestServer;
using LogFlushMonitor.TdsTestServer.Tls;
using LogFlushMonitor.XEvent.TestSupport;

// Usage: LogFlushMonitor.ScriptedServer [--encryption NotSupported|Optional|Required|Strict] [--flushes N]
//                                       [--requests-out FILE] [--lifetime SECONDS] [--availability-group true]
// Starts the scripted SQL Server on a free port of 127.0.0.1 and prints one line, "port=<n> certificate=<pem path or
// ->", then serves until SIGTERM/Ctrl+C or --lifetime (default 600 s) passes: it stops by itself. The live stream gets
// N log_flush_start events of database 5 ("sales"); every histogram session's target grows by 30 writes of 512 B and
// 10 of 60 KB per read. With --availability-group true, "sales" is the primary of ag_sales with a synchronous and an
// asynchronous secondary (the replica states and Database Replica counters answer for it). On the way out,
// --requests-out gets every statement received, each on one line.
var options = Options.Parse(args);
var certificate = options.Encryption == TdsEncryption.NotSupported ? null : TdsTestCertificates.CreateSelfSigned();
await using var server = new ScriptedSqlServer(encryption: options.Encryption, certificate: certificate);
var pem = certificate is null ? "-" : TdsTestCertificates.WritePublicPem(certificate);
if (options.AvailabilityGroup)
{
    server.HostAvailabilityGroup();
}

var start = new DateTime(2026, 11, 22, 10, 0, 0, DateTimeKind.Utc);
foreach (var (type, data) in XelWriter.WriteLiveStreamBuffers(start, w =>
         {
             for (var seq = 1L; seq <= options.Flushes; seq++)
             {
                 w.LogFlushStart(start.AddMilliseconds(seq), 5, null, (seq % 3) switch { 0 => 512u, 1 => 4096u, _ => 61440u }, (ulong)seq, (ulong)seq);
                 if (seq % 100 == 0)
                 {
                     w.Flush();
                 }
             }
         }))
{
    await server.EventStream.Writer.WriteAsync([type, data]);
}

var reads = 0;
server.HistogramTargetXml = _ =>
{
    var n = Interlocked.Increment(ref reads);
    return string.Create(CultureInfo.InvariantCulture,
        $"<HistogramTarget truncated=\"0\" buckets=\"256\"><Slot count=\"{30 * n}\"><value>512</value></Slot><Slot count=\"{10 * n}\"><value>61440</value></Slot></HistogramTarget>");
};

using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(options.LifetimeSeconds));
using var sigterm = System.Runtime.InteropServices.PosixSignalRegistration.Create(System.Runtime.InteropServices.PosixSignal.SIGTERM, c =>
{
    c.Cancel = true;
    stop.Cancel();
});
Console.CancelKeyPress += (_, e) =>
{
    e.Cancel = true;
    stop.Cancel();
};
Console.WriteLine($"port={server.Server.Port} certificate={pem}");
Console.Out.Flush();
try
{
    await Task.Delay(Timeout.Infinite, stop.Token);
}
catch (OperationCanceledException)
{
    // Asked to stop, or the lifetime is over.
}

if (options.RequestsOut is { } path)
{
    var lines = server.Server.Requests.Select(r => string.Join(' ', (r.Text ?? "").Split((char[])['\r', '\n'], StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)));
    await File.WriteAllLinesAsync(path, lines, Encoding.UTF8);
}

internal sealed record Options(TdsEncryption Encryption, int Flushes, string? RequestsOut, int LifetimeSeconds, bool AvailabilityGroup = false)
{
    public static Options Parse(string[] args)
    {
        var o = new Options(TdsEncryption.NotSupported, 300, null, 600);
        for (var i = 0; i + 1 < args.Length; i += 2)
        {
            o = args[i] switch
            {
                "--encryption" => o with { Encryption = Enum.Parse<TdsEncryption>(args[i + 1], ignoreCase: true) },
                "--flushes" => o with { Flushes = int.Parse(args[i + 1], CultureInfo.InvariantCulture) },
                "--requests-out" => o with { RequestsOut = args[i + 1] },
                "--lifetime" => o with { LifetimeSeconds = int.Parse(args[i + 1], CultureInfo.InvariantCulture) },
                "--availability-group" => o with { AvailabilityGroup = bool.Parse(args[i + 1]) },
                _ => throw new ArgumentException($"Unknown option {args[i]}: see the usage comment in Program.cs."),
            };
        }

        return o;
    }
}
