using System.Diagnostics;
using System.Text;

namespace LogFlushMonitor.Testing;

/// <summary>
/// A server program a test runs on a free port of 127.0.0.1 (Prometheus, Alertmanager): started with the arguments
/// it is given for that port, ready once it answers <c>/-/ready</c>, its stderr kept for failure messages, and killed
/// with its working folder at the end. A free port can be taken by another process between asking and binding, so
/// the start is tried three times, each on a new port.
/// </summary>
public sealed class LocalServerProcess : IAsyncDisposable
{
    private readonly Process _process;
    private readonly StringBuilder _stderr = new();

    private LocalServerProcess(string name, Process process, DirectoryInfo work, int port)
    {
        Name = name;
        _process = process;
        Work = work;
        Port = port;
        Api = new HttpClient { BaseAddress = new Uri($"http://127.0.0.1:{port}"), Timeout = TimeSpan.FromSeconds(10) };
    }

    /// <summary>The program's name in messages.</summary>
    public string Name { get; }

    /// <summary>Its working folder (configuration, data), deleted at the end.</summary>
    public DirectoryInfo Work { get; }

    /// <summary>The port of its HTTP API.</summary>
    public int Port { get; }

    /// <summary>A client for its HTTP API.</summary>
    public HttpClient Api { get; }

    /// <summary>What it wrote to stderr so far.</summary>
    public string Stderr
    {
        get
        {
            lock (_stderr)
            {
                return _stderr.ToString();
            }
        }
    }

    /// <summary>
    /// Starts <paramref name="binary"/> with the arguments <paramref name="arguments"/> gives for a port and an attempt
    /// number (for a data folder of its own), and waits until it is ready.
    /// </summary>
    public static async Task<LocalServerProcess> StartAsync(string name, string binary, DirectoryInfo work, Func<int, int, IEnumerable<string>> arguments)
    {
        ArgumentNullException.ThrowIfNull(arguments);
        for (var attempt = 1; ; attempt++)
        {
            var port = TestPorts.Free();
            var process = new Process
            {
                StartInfo = new ProcessStartInfo(binary, arguments(port, attempt))
                {
                    RedirectStandardError = true,
                    RedirectStandardOutput = true,
                },
            };
            var server = new LocalServerProcess(name, process, work, port);
            process.ErrorDataReceived += (_, e) =>
            {
                lock (server._stderr)
                {
                    server._stderr.AppendLine(e.Data);
                }
            };
            process.OutputDataReceived += (_, _) => { };
            process.Start();
            process.BeginErrorReadLine();
            process.BeginOutputReadLine();
            try
            {
                await Eventually.Until(server.IsReadyAsync, $"{name} to answer on /-/ready").ConfigureAwait(false);
                return server;
            }
            catch (Exception e) when (e is TimeoutException or InvalidOperationException && attempt < 3)
            {
                await server.StopAsync(deleteData: false).ConfigureAwait(false);
            }
            catch
            {
                await server.DisposeAsync().ConfigureAwait(false);
                throw;
            }
        }
    }

    /// <exception cref="InvalidOperationException">When the program has exited (the message has its stderr).</exception>
    public void ThrowIfExited()
    {
        if (_process.HasExited)
        {
            throw new InvalidOperationException($"{Name} exited with code {_process.ExitCode}: {Stderr}");
        }
    }

    /// <summary>Kills the program and deletes its working folder.</summary>
    public async ValueTask DisposeAsync() => await StopAsync(deleteData: true).ConfigureAwait(false);

    private async Task<bool> IsReadyAsync()
    {
        ThrowIfExited();
        try
        {
            using var response = await Api.GetAsync(new Uri("/-/ready", UriKind.Relative)).ConfigureAwait(false);
            return response.IsSuccessStatusCode;
        }
        catch (HttpRequestException)
        {
            return false; // still starting
        }
    }

    private async Task StopAsync(bool deleteData)
    {
        Api.Dispose();
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
        }

        using var exit = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        await _process.WaitForExitAsync(exit.Token).ConfigureAwait(false);
        _process.Dispose();
        if (deleteData)
        {
            Work.Delete(recursive: true);
        }
    }
}
