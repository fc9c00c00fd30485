using System.CommandLine;
using LogFlushMonitor.Analysis.Commands;
using System.Diagnostics;
using System.Globalization;
using LogFlushMonitor.Simulation;
using LogFlushMonitor.Recording;

namespace LogFlushMonitor.Commands;

/// <summary><c>logflushmonitor simulate</c>: writes a simulated workload as NDJSON samples.</summary>
internal static class SimulateCommand
{
    public static Command Create()
    {
        var scenario = new Option<string>("--scenario") { Description = "Scenario: " + string.Join(", ", SimulationScenarios.Names), Required = true };
        var duration = new Option<string>("--duration") { Description = "Simulated time, e.g. 60s, 5m, 00:10:00.", DefaultValueFactory = _ => "60s" };
        var output = new Option<FileInfo>("--out") { Description = "NDJSON file to write.", Required = true };
        var seed = new Option<int>("--seed") { Description = "Random seed (the same seed gives the same file).", DefaultValueFactory = _ => 1 };
        var start = new Option<DateTime?>("--start") { Description = "Simulated start time (UTC, ISO-8601); default now." };
        var command = new Command("simulate", "Write a simulated workload (log flush and wait events, counter, wait-stats and file-stats samples) to an NDJSON file for `run --replay`.")
        {
            scenario, duration, output, seed, start,
        };
        command.SetAction(async (parse, cancellationToken) =>
        {
            var name = parse.GetValue(scenario)!;
            if (!SimulationScenarios.Names.Contains(name))
            {
                await parse.Error().WriteLineAsync($"Unknown scenario '{name}'. Use one of: {string.Join(", ", SimulationScenarios.Names)}.").ConfigureAwait(false);
                return ExitCodes.Configuration;
            }

            if (!DurationParser.TryParse(parse.GetValue(duration), out var length))
            {
                await parse.Error().WriteLineAsync($"--duration '{parse.GetValue(duration)}' is not a duration. Write e.g. 90s, 5m, 1h or 00:05:00.").ConfigureAwait(false);
                return ExitCodes.Configuration;
            }

            var file = parse.GetValue(output)!;
            var startUtc = parse.GetValue(start) is { } s ? DateTime.SpecifyKind(s.ToUniversalTime(), DateTimeKind.Utc) : DateTime.UtcNow;
            var options = new SimulationOptions { Seed = parse.GetValue(seed) };
            // Said before writing: a few simulated minutes of a busy scenario are gigabytes (mixed writes about 4.5 MB a
            // simulated second), and the person should know before the disk fills, not after.
            var estimate = EstimateBytes(name, options, startUtc, length);
            await parse.Error().WriteLineAsync(
                $"Writing about {Size(estimate)} ({length} simulated of scenario {name}) to {file.FullName}; a shorter --duration writes less.").ConfigureAwait(false);
            var watch = Stopwatch.StartNew();
            var simulation = SimulationScenarios.Create(name, options);
            long samples;
            long bytes;
            try
            {
                (samples, bytes) = WriteRecording(file, writer => simulation.Run(startUtc, length, writer), OpenTemporary);
            }
            catch (IOException e)
            {
                await parse.Error().WriteLineAsync($"Could not write {file.FullName}: {e.Message}").ConfigureAwait(false);
                return ExitCodes.Failure;
            }
            catch (UnauthorizedAccessException e)
            {
                await parse.Error().WriteLineAsync($"Could not write {file.FullName}: {e.Message}").ConfigureAwait(false);
                return ExitCodes.Failure;
            }

            await parse.Error().WriteLineAsync(
                $"Wrote {samples:N0} samples ({Size(bytes)}) of scenario {name} ({length} simulated, instances {string.Join(", ", simulation.Instances)}) to {file.FullName} in {watch.Elapsed.TotalSeconds:0.0} s. "
                + $"Replay it with: logflushmonitor run --replay {file.FullName}").ConfigureAwait(false);
            return ExitCodes.Ok;
        });
        return command;
    }

    /// <summary>
    /// Writes a recording to <paramref name="file"/> through a temporary file beside it (<see cref="TemporaryFile"/>),
    /// renamed into place only when the whole recording is written: a full disk leaves no truncated recording at the
    /// target path (and no temporary file). <paramref name="create"/> opens the temporary file.
    /// </summary>
    internal static (long Samples, long Bytes) WriteRecording(FileInfo file, Action<NdjsonSampleWriter> run, Func<string, Stream> create)
    {
        file.Directory?.Create();
        var temporary = TemporaryFile.For(file.FullName);
        try
        {
            long samples, bytes;
            using (var stream = create(temporary))
            {
                using (var writer = new NdjsonSampleWriter(stream, leaveOpen: true))
                {
                    run(writer);
                    writer.Flush();
                    samples = writer.Lines;
                }

                stream.Flush();
                bytes = stream.Length;
            }

            File.Move(temporary, file.FullName, overwrite: true);
            return (samples, bytes);
        }
        catch
        {
            TemporaryFile.Delete(temporary);
            throw;
        }
    }

    private static FileStream OpenTemporary(string path) =>
        new(path, FileMode.Create, FileAccess.Write, FileShare.Read, 1 << 16, FileOptions.SequentialScan);

    /// <summary>The simulated span the size estimate writes (to a counter, not a disk) and scales up.</summary>
    internal static readonly TimeSpan EstimateSpan = TimeSpan.FromSeconds(2);

    /// <summary>
    /// The bytes <paramref name="length"/> of scenario <paramref name="name"/> would take, from the same simulation run
    /// for <see cref="EstimateSpan"/> (or the whole length when shorter) into a writer that only counts, scaled by time.
    /// A scenario whose rate changes later (restart, drop-database) is estimated by its start: "about".
    /// </summary>
    internal static long EstimateBytes(string name, SimulationOptions options, DateTime startUtc, TimeSpan length)
    {
        var span = length < EstimateSpan ? length : EstimateSpan;
        using var counter = new CountingStream();
        using (var writer = new NdjsonSampleWriter(counter, leaveOpen: true))
        {
            SimulationScenarios.Create(name, options).Run(startUtc, span, writer);
            writer.Flush();
        }

        return (long)(counter.Length * (length / span));
    }

    /// <summary>Bytes as a person reads them: 67 MB, 1.35 GB.</summary>
    internal static string Size(long bytes) => bytes switch
    {
        >= 1L << 30 => string.Create(CultureInfo.InvariantCulture, $"{bytes / (double)(1L << 30):0.##} GB"),
        >= 1L << 20 => string.Create(CultureInfo.InvariantCulture, $"{bytes / (double)(1L << 20):0.#} MB"),
        >= 1L << 10 => string.Create(CultureInfo.InvariantCulture, $"{bytes / (double)(1L << 10):0.#} KB"),
        _ => string.Create(CultureInfo.InvariantCulture, $"{bytes} bytes"),
    };

    /// <summary>A write-only stream that keeps nothing and counts what was written.</summary>
    private sealed class CountingStream : Stream
    {
        private long _length;

        public override bool CanRead => false;

        public override bool CanSeek => false;

        public override bool CanWrite => true;

        public override long Length => _length;

        public override long Position
        {
            get => _length;
            set => throw new NotSupportedException();
        }

        public override void Flush()
        {
        }

        public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

        public override void SetLength(long value) => throw new NotSupportedException();

        public override void Write(byte[] buffer, int offset, int count) => _length += count;

        public override void Write(ReadOnlySpan<byte> buffer) => _length += buffer.Length;
    }
}
