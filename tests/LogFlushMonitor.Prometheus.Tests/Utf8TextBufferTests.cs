using System.Text;
using LogFlushMonitor.Prometheus.Exposition;

namespace LogFlushMonitor.Prometheus.Tests;

public sealed class Utf8TextBufferTests
{
    [Theory]
    [InlineData(double.PositiveInfinity, "+Inf")]
    [InlineData(double.NegativeInfinity, "-Inf")]
    [InlineData(double.NaN, "NaN")]
    [InlineData(0.1, "0.1")]
    [InlineData(1e21, "1E+21")]
    [InlineData(-2.5e-7, "-2.5E-07")]
    [InlineData(61440d, "61440")]
    public void Doubles_use_prometheus_specials_and_shortest_round_trip(double value, string expected)
    {
        var buffer = new Utf8TextBuffer();
        buffer.WriteDouble(value);
        var text = Encoding.UTF8.GetString(buffer.WrittenSpan);
        Assert.Equal(expected, text);
        if (double.IsFinite(value))
        {
            Assert.Equal(value, double.Parse(text, System.Globalization.CultureInfo.InvariantCulture));
        }
    }

    [Fact]
    public void Label_values_escape_backslash_quote_and_newline_and_keep_unicode()
    {
        var buffer = new Utf8TextBuffer();
        buffer.WriteEscaped("a\\b\"c\nd é 😀", escapeQuote: true);
        Assert.Equal("a\\\\b\\\"c\\nd é 😀", Encoding.UTF8.GetString(buffer.WrittenSpan));
    }

    [Fact]
    public void Help_text_keeps_quotes_unescaped()
    {
        var buffer = new Utf8TextBuffer();
        buffer.WriteEscaped("say \"x\"\\\n", escapeQuote: false);
        Assert.Equal("say \"x\"\\\\\\n", Encoding.UTF8.GetString(buffer.WrittenSpan));
    }

    [Fact]
    public void Buffer_grows_past_its_initial_capacity_without_losing_text()
    {
        var buffer = new Utf8TextBuffer(16);
        var expected = new StringBuilder();
        for (var i = 0; i < 5000; i++)
        {
            buffer.WriteLong(i);
            buffer.Write((byte)' ');
            expected.Append(i).Append(' ');
        }

        Assert.Equal(expected.ToString(), Encoding.UTF8.GetString(buffer.WrittenSpan));
    }

    [Fact]
    public void A_buffer_with_a_drain_hands_on_its_text_in_pieces_that_fit_it_and_loses_nothing()
    {
        var drain = new RecordingDrain();
        using var streaming = new Utf8TextBuffer(256, drain);
        using var whole = new Utf8TextBuffer(16);
        for (var i = 0; i < 5_000; i++)
        {
            foreach (var buffer in new[] { streaming, whole })
            {
                buffer.Write("name{label=\""u8);
                buffer.WriteEscaped($"é\"😀\\{i}\n", escapeQuote: true);
                buffer.Write((byte)'"');
                buffer.WriteDouble(i / 7.0);
                buffer.WriteLong(-i);
                buffer.Write((byte)'\n');
            }
        }

        streaming.Flush();
        Assert.Equal(0, streaming.Length);
        Assert.True(drain.Pieces.Count > 100, $"only {drain.Pieces.Count} pieces");
        Assert.All(drain.Pieces, p => Assert.InRange(p.Length, 1, streaming.Capacity));
        Assert.Equal(whole.WrittenSpan.ToArray(), drain.Pieces.SelectMany(p => p).ToArray());
    }

    [Fact]
    public void A_write_larger_than_a_draining_buffer_drains_first_then_grows_to_fit()
    {
        var drain = new RecordingDrain();
        using var buffer = new Utf8TextBuffer(256, drain);
        buffer.Write("head "u8);
        var big = Enumerable.Repeat((byte)'x', 1000).ToArray();
        buffer.Write(big);
        buffer.Flush();

        Assert.Equal(["head "], drain.Pieces.Take(1).Select(p => Encoding.UTF8.GetString(p)));
        Assert.Equal(big, drain.Pieces[1]);
    }

    [Fact]
    public void Writing_after_dispose_throws()
    {
        var buffer = new Utf8TextBuffer(4096);
        buffer.Write("written"u8);
        buffer.Dispose();

        Assert.Throws<ObjectDisposedException>(() => buffer.Write(new byte[5000]));
    }

    [Fact]
    public void Array_attributes_are_written_as_json_by_hand()
    {
        Assert.Equal("[1,2,3]", LabelSet.JsonArray(new long[] { 1, 2, 3 }));
        Assert.Equal("[0.5,-2.5E-07,\"NaN\",\"Infinity\",\"-Infinity\"]", LabelSet.JsonArray(new[] { 0.5, -2.5e-7, double.NaN, double.PositiveInfinity, double.NegativeInfinity }));
        Assert.Equal("[true,false]", LabelSet.JsonArray(new[] { true, false }));
        Assert.Equal("[\"a\\\"b\",\"c\\\\d\",\"e\\nf\\u0001\",\"é😀\",null]", LabelSet.JsonArray(new[] { "a\"b", "c\\d", "e\nf\u0001", "é😀", null }));
    }

    private sealed class RecordingDrain : IUtf8Drain
    {
        public List<byte[]> Pieces { get; } = [];

        public void Drain(ReadOnlySpan<byte> bytes) => Pieces.Add(bytes.ToArray());
    }
}
