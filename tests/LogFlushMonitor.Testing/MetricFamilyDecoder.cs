using System.Buffers.Binary;
using System.Text;

namespace LogFlushMonitor.Testing;

/// <summary>
/// An independent reader of the protobuf exposition, written in the test from the protobuf encoding specification and
/// prometheus/client_model's metrics.proto (field numbers below), sharing no code with the exporter's writer. It
/// accepts repeated scalars packed and unpacked (as proto2 parsers must), and fails on anything it does not know
/// instead of skipping it, so an extra or misnumbered field shows.
/// </summary>
public static class MetricFamilyDecoder
{
    public sealed record Family(string Name, string? Help, int Type, List<Series> Metrics);

    public sealed record Series(Dictionary<string, string> Labels)
    {
        public double? Counter { get; set; }

        public double? Gauge { get; set; }

        public Histogram? Histogram { get; set; }

        public long? TimestampMs { get; set; }
    }

    public sealed class Histogram
    {
        public ulong? SampleCount { get; set; }

        public double? SampleSum { get; set; }

        public List<(ulong Cumulative, double UpperBound)> Buckets { get; } = [];

        public int? Schema { get; set; }

        public double? ZeroThreshold { get; set; }

        public ulong? ZeroCount { get; set; }

        public List<(int Offset, uint Length)> PositiveSpans { get; } = [];

        public List<long> PositiveDeltas { get; } = [];

        /// <summary>True when Prometheus 2.42 would read it as native (its isNativeHistogram).</summary>
        public bool IsNative => PositiveDeltas.Count > 0 || ZeroCount > 0 || ZeroThreshold > 0;

        /// <summary>The native buckets as (Prometheus index, absolute count), from the spans and deltas.</summary>
        public List<(int Index, long Count)> NativeBuckets()
        {
            var result = new List<(int, long)>();
            var index = 0;
            var delta = 0;
            long count = 0;
            for (var s = 0; s < PositiveSpans.Count; s++)
            {
                index += PositiveSpans[s].Offset;
                for (var i = 0; i < PositiveSpans[s].Length; i++)
                {
                    count += PositiveDeltas[delta++];
                    result.Add((index, count));
                    index++;
                }
            }

            Expect(PositiveDeltas.Count, delta);
            return result;
        }

        /// <summary>Bucket <paramref name="index"/>'s upper bound at the schema: 2^(index / 2^schema).</summary>
        public double UpperBound(int index) => Math.Pow(2, index / Math.Pow(2, Schema!.Value));
    }

    /// <summary>Reads every length-delimited MetricFamily of a scrape.</summary>
    public static List<Family> Decode(ReadOnlySpan<byte> scrape)
    {
        var families = new List<Family>();
        var reader = new Reader(scrape);
        while (!reader.End)
        {
            var length = (int)reader.Varint();
            families.Add(ReadFamily(new Reader(reader.Take(length))));
        }

        return families;
    }

    private static Family ReadFamily(Reader r)
    {
        string name = "", help = null!;
        var type = -1;
        var metrics = new List<Series>();
        while (!r.End)
        {
            var (field, wire) = r.Tag();
            switch (field)
            {
                case 1: Expect(2, wire); name = r.String(); break;
                case 2: Expect(2, wire); help = r.String(); break;
                case 3: Expect(0, wire); type = (int)r.Varint(); break;
                case 4: Expect(2, wire); metrics.Add(ReadMetric(r.Message())); break;
                default: throw new InvalidDataException($"MetricFamily has unknown field {field}");
            }
        }

        return new Family(name, help, type, metrics);
    }

    private static Series ReadMetric(Reader r)
    {
        var series = new Series(new Dictionary<string, string>(StringComparer.Ordinal));
        while (!r.End)
        {
            var (field, wire) = r.Tag();
            switch (field)
            {
                case 1:
                    Expect(2, wire);
                    var pair = r.Message();
                    string? key = null, value = null;
                    while (!pair.End)
                    {
                        var (f, w) = pair.Tag();
                        Expect(2, w);
                        if (f == 1) { key = pair.String(); }
                        else if (f == 2) { value = pair.String(); }
                        else { throw new InvalidDataException($"LabelPair has unknown field {f}"); }
                    }

                    series.Labels.Add(key!, value!);
                    break;
                case 2: series.Gauge = ReadValue(r.Message()); break;
                case 3: series.Counter = ReadValue(r.Message()); break;
                case 6: Expect(0, wire); series.TimestampMs = (long)r.Varint(); break;
                case 7: series.Histogram = ReadHistogram(r.Message()); break;
                default: throw new InvalidDataException($"Metric has unknown field {field}");
            }
        }

        return series;
    }

    private static double ReadValue(Reader r)
    {
        double value = 0;
        while (!r.End)
        {
            var (field, wire) = r.Tag();
            Expect(1, field);
            Expect(1, wire);
            value = r.Double();
        }

        return value;
    }

    private static Histogram ReadHistogram(Reader r)
    {
        var h = new Histogram();
        while (!r.End)
        {
            var (field, wire) = r.Tag();
            switch (field)
            {
                case 1: Expect(0, wire); h.SampleCount = r.Varint(); break;
                case 2: Expect(1, wire); h.SampleSum = r.Double(); break;
                case 3:
                    var bucket = r.Message();
                    ulong cumulative = 0;
                    double bound = double.NaN;
                    while (!bucket.End)
                    {
                        var (f, w) = bucket.Tag();
                        if (f == 1 && w == 0) { cumulative = bucket.Varint(); }
                        else if (f == 2 && w == 1) { bound = bucket.Double(); }
                        else { throw new InvalidDataException($"Bucket has unknown field {f}"); }
                    }

                    h.Buckets.Add((cumulative, bound));
                    break;
                case 5: Expect(0, wire); h.Schema = (int)UnZigZag(r.Varint()); break;
                case 6: Expect(1, wire); h.ZeroThreshold = r.Double(); break;
                case 7: Expect(0, wire); h.ZeroCount = r.Varint(); break;
                case 12:
                    var span = r.Message();
                    int offset = 0;
                    uint length = 0;
                    while (!span.End)
                    {
                        var (f, w) = span.Tag();
                        Expect(0, w);
                        if (f == 1) { offset = (int)UnZigZag(span.Varint()); }
                        else if (f == 2) { length = (uint)span.Varint(); }
                        else { throw new InvalidDataException($"BucketSpan has unknown field {f}"); }
                    }

                    h.PositiveSpans.Add((offset, length));
                    break;
                case 13 when wire == 2:
                    var packed = r.Message();
                    while (!packed.End)
                    {
                        h.PositiveDeltas.Add(UnZigZag(packed.Varint()));
                    }

                    break;
                case 13: Expect(0, wire); h.PositiveDeltas.Add(UnZigZag(r.Varint())); break;
                default: throw new InvalidDataException($"Histogram has unexpected field {field}");
            }
        }

        return h;
    }

    private static void Expect(long expected, long actual)
    {
        if (expected != actual)
        {
            throw new InvalidDataException($"expected {expected} (a wire type, or the deltas the spans count), read {actual}");
        }
    }

    private static long UnZigZag(ulong value) => (long)(value >> 1) ^ -(long)(value & 1);

    private ref struct Reader(ReadOnlySpan<byte> bytes)
    {
        private ReadOnlySpan<byte> _rest = bytes;

        public readonly bool End => _rest.IsEmpty;

        public ulong Varint()
        {
            ulong value = 0;
            for (var shift = 0; shift < 70; shift += 7)
            {
                var b = _rest[0];
                _rest = _rest[1..];
                value |= (ulong)(b & 0x7F) << shift;
                if (b < 0x80)
                {
                    return value;
                }
            }

            throw new InvalidDataException("varint longer than 10 bytes");
        }

        public (int Field, int Wire) Tag()
        {
            var tag = Varint();
            return ((int)(tag >> 3), (int)(tag & 7));
        }

        public ReadOnlySpan<byte> Take(int length)
        {
            var taken = _rest[..length];
            _rest = _rest[length..];
            return taken;
        }

        public Reader Message() => new(Take((int)Varint()));

        public string String() => Encoding.UTF8.GetString(Take((int)Varint()));

        public double Double() => BinaryPrimitives.ReadDoubleLittleEndian(Take(8));
    }
}
