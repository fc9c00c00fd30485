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
}
