using System.Globalization;
using System.Text;
using System.Text.Encodings.Web;

namespace LogFlushMonitor.Report;

/// <summary>One series of a time chart: a value per bucket, drawn as a stepped area (one step per bucket).</summary>
/// <param name="Name">Legend text.</param>
/// <param name="Values">A value per bucket.</param>
/// <param name="CssClass">Colour class (<c>s1</c>…<c>s4</c> in the page's style).</param>
internal sealed record ChartSeries(string Name, IReadOnlyList<double> Values, string CssClass);

/// <summary>
/// Inline SVG charts for the HTML report, drawn by our code (no script, no library, nothing fetched): a bar chart of
/// categories and a time chart of stepped areas, each with axes, ticks, grid lines, axis titles with units, and a
/// legend when there is more than one series. Every text is HTML-encoded.
/// </summary>
internal static class SvgChart
{
    private const int Width = 560;
    private const int Height = 250;
    private const int Left = 64;
    private const int Right = 16;
    private const int Top = 28;
    private const int Bottom = 48;
    private const int PlotWidth = Width - Left - Right;
    private const int PlotHeight = Height - Top - Bottom;
    private static readonly CultureInfo Ci = CultureInfo.InvariantCulture;

    /// <summary>
    /// Bars, one per category, each labelled with <paramref name="barLabels"/> (above it, or inside a bar that reaches
    /// the top) and <paramref name="tips"/> on hover; the axis ends at a round number, at most <paramref name="axisMax"/>.
    /// </summary>
    public static string Bars(
        IReadOnlyList<string> categories, IReadOnlyList<double> values, IReadOnlyList<string> barLabels, IReadOnlyList<string> tips,
        string xTitle, string yTitle, string label, double axisMax = double.MaxValue)
    {
        var sb = Open(label);
        var max = Math.Min(axisMax, NiceMax(values.DefaultIfEmpty(0).Max()));
        YAxis(sb, max, yTitle);
        var slot = (double)PlotWidth / categories.Count;
        var barWidth = slot * 0.7;
        for (var i = 0; i < categories.Count; i++)
        {
            var x = Left + (i * slot) + ((slot - barWidth) / 2);
            var h = values[i] <= 0 ? 0 : Math.Max(1, values[i] / max * PlotHeight);
            var y = Top + PlotHeight - h;
            sb.Append(Ci, $"<rect class=\"bar s1\" x=\"{x:0.#}\" y=\"{y:0.#}\" width=\"{barWidth:0.#}\" height=\"{h:0.#}\"><title>{E(categories[i])}: {E(tips[i])}</title></rect>");
            if (values[i] > 0)
            {
                var inside = h > PlotHeight - 14;
                sb.Append(Ci, $"<text class=\"value{(inside ? " inside" : "")}\" x=\"{x + (barWidth / 2):0.#}\" y=\"{(inside ? y + 13 : y - 4):0.#}\" text-anchor=\"middle\">{E(barLabels[i])}</text>");
            }

            sb.Append(Ci, $"<text class=\"tick\" x=\"{x + (barWidth / 2):0.#}\" y=\"{Top + PlotHeight + 16}\" text-anchor=\"middle\">{E(categories[i])}</text>");
        }

        XTitle(sb, xTitle);
        return Close(sb);
    }

    /// <summary>
    /// Stepped areas over time, bucket <c>i</c> covering [start + i·width, start + (i+1)·width); a legend above the plot
    /// when there are several series and <paramref name="legend"/> (a caller with many or long names gives its own, as a
    /// table: text measured here by its length would overlap in the browser's font).
    /// </summary>
    public static string Time(DateTime start, TimeSpan width, IReadOnlyList<ChartSeries> series, string yTitle, string label, bool legend = true)
    {
        var sb = Open(label);
        var count = series.Max(s => s.Values.Count);
        var max = NiceMax(series.SelectMany(s => s.Values).DefaultIfEmpty(0).Max());
        YAxis(sb, max, yTitle);
        var bucket = (double)PlotWidth / Math.Max(1, count);
        // The first series is a filled area; the others are outlines drawn over it, so equal values stay visible.
        var filled = true;
        foreach (var s in series)
        {
            var path = new StringBuilder();
            path.Append(Ci, $"M{Left},{Top + PlotHeight}");
            for (var i = 0; i < s.Values.Count; i++)
            {
                var y = Top + PlotHeight - (s.Values[i] / max * PlotHeight);
                path.Append(Ci, $"V{y:0.##}H{Left + ((i + 1) * bucket):0.##}");
            }

            path.Append(Ci, $"V{Top + PlotHeight}");
            sb.Append(Ci, $"<path class=\"{(filled ? "area" : "line")} {s.CssClass}\" d=\"{path}{(filled ? "Z" : "")}\"><title>{E(s.Name)}</title></path>");
            filled = false;
        }

        TimeAxis(sb, start, width, count);
        if (legend && series.Count > 1)
        {
            Legend(sb, series);
        }

        return Close(sb);
    }

    /// <summary>
    /// Two bars per category side by side, the first series in the first colour and the second in the second, with a
    /// legend above the plot (<c>compare</c>'s before and after on one chart).
    /// </summary>
    public static string PairedBars(
        IReadOnlyList<string> categories, (string Name, IReadOnlyList<double> Values) first, (string Name, IReadOnlyList<double> Values) second,
        Func<double, string> tip, string xTitle, string yTitle, string label, double axisMax = double.MaxValue)
    {
        var sb = Open(label);
        var max = Math.Min(axisMax, NiceMax(first.Values.Concat(second.Values).DefaultIfEmpty(0).Max()));
        YAxis(sb, max, yTitle);
        var slot = (double)PlotWidth / categories.Count;
        var barWidth = slot * 0.36;
        for (var i = 0; i < categories.Count; i++)
        {
            foreach (var (series, k) in new[] { (first, 0), (second, 1) })
            {
                var v = series.Values[i];
                var x = Left + (i * slot) + (slot * 0.12) + (k * barWidth);
                var h = v <= 0 ? 0 : Math.Max(1, v / max * PlotHeight);
                sb.Append(Ci, $"<rect class=\"bar s{k + 1}\" x=\"{x:0.#}\" y=\"{Top + PlotHeight - h:0.#}\" width=\"{barWidth:0.#}\" height=\"{h:0.#}\"><title>{E(series.Name)}, {E(categories[i])}: {E(tip(v))}</title></rect>");
            }

            sb.Append(Ci, $"<text class=\"tick\" x=\"{Left + (i * slot) + (slot / 2):0.#}\" y=\"{Top + PlotHeight + 16}\" text-anchor=\"middle\">{E(categories[i])}</text>");
        }

        var lx = Left + PlotWidth - 150;
        foreach (var (name, k) in new[] { (first.Name, 0), (second.Name, 1) })
        {
            sb.Append(Ci, $"<rect class=\"s{k + 1}\" x=\"{lx + (k * 75)}\" y=\"{Top - 22}\" width=\"10\" height=\"10\"/><text class=\"legend\" x=\"{lx + (k * 75) + 14}\" y=\"{Top - 13}\">{E(name)}</text>");
        }

        XTitle(sb, xTitle);
        return Close(sb);
    }

    /// <summary>The largest "nice" number (1, 2, 2.5 or 5 times a power of ten) at or above <paramref name="value"/>; 1 for nothing.</summary>
    public static double NiceMax(double value)
    {
        if (value <= 0 || double.IsNaN(value))
        {
            return 1;
        }

        var magnitude = Math.Pow(10, Math.Floor(Math.Log10(value)));
        foreach (var step in (ReadOnlySpan<double>)[1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10])
        {
            if (step * magnitude >= value * 0.999999)
            {
                return step * magnitude;
            }
        }

        return 10 * magnitude;
    }

    /// <summary>A number as a tick label: 0.25, 12, 1.5k, 2M.</summary>
    public static string Compact(double v) => Math.Abs(v) switch
    {
        0 => "0",
        >= 1e6 => (v / 1e6).ToString("0.##", Ci) + "M",
        >= 1e4 => (v / 1e3).ToString("0.#", Ci) + "k",
        >= 100 => v.ToString("0", Ci),
        >= 10 => v.ToString("0.#", Ci),
        >= 1 => v.ToString("0.##", Ci),
        // Below 1, three significant digits: the ticks of 0.0012 are 0.0003, 0.0006, 0.0009.
        _ => Math.Round(v, Math.Min(15, 2 - (int)Math.Floor(Math.Log10(Math.Abs(v))))).ToString("0.###############", Ci),
    };

    private static string E(string text) => HtmlEncoder.Default.Encode(text);

    private static StringBuilder Open(string label)
    {
        var sb = new StringBuilder(8192);
        sb.Append(Ci, $"<svg class=\"chart\" viewBox=\"0 0 {Width} {Height}\" width=\"{Width}\" height=\"{Height}\" role=\"img\" aria-label=\"{E(label)}\" xmlns=\"http://www.w3.org/2000/svg\">");
        return sb;
    }

    private static string Close(StringBuilder sb) => sb.Append("</svg>").ToString();

    private static void YAxis(StringBuilder sb, double max, string title)
    {
        for (var i = 0; i <= 4; i++)
        {
            var v = max * i / 4;
            var y = Top + PlotHeight - (PlotHeight * i / 4.0);
            sb.Append(Ci, $"<line class=\"grid\" x1=\"{Left}\" y1=\"{y:0.#}\" x2=\"{Left + PlotWidth}\" y2=\"{y:0.#}\"/>");
            sb.Append(Ci, $"<text class=\"tick\" x=\"{Left - 6}\" y=\"{y + 4:0.#}\" text-anchor=\"end\">{Compact(v)}</text>");
        }

        sb.Append(Ci, $"<line class=\"axis\" x1=\"{Left}\" y1=\"{Top}\" x2=\"{Left}\" y2=\"{Top + PlotHeight}\"/>");
        sb.Append(Ci, $"<line class=\"axis\" x1=\"{Left}\" y1=\"{Top + PlotHeight}\" x2=\"{Left + PlotWidth}\" y2=\"{Top + PlotHeight}\"/>");
        sb.Append(Ci, $"<text class=\"title\" x=\"{Left}\" y=\"{Top - 12}\" text-anchor=\"start\">{E(title)}</text>");
    }

    private static void XTitle(StringBuilder sb, string title) =>
        sb.Append(Ci, $"<text class=\"title\" x=\"{Left + (PlotWidth / 2)}\" y=\"{Height - 8}\" text-anchor=\"middle\">{E(title)}</text>");

    /// <summary>
    /// About six labels on whole multiples of a round interval; the date goes into the axis title. At most
    /// <see cref="MaxTimeTicks"/> labels whatever the span (past the listed steps, whole days doubled), and no label
    /// past the last date a DateTime holds: a span of centuries costs no more than one of minutes.
    /// </summary>
    private static void TimeAxis(StringBuilder sb, DateTime start, TimeSpan width, int count)
    {
        var spanTicks = width.Ticks > TimeSpan.MaxValue.Ticks / Math.Max(1, count) ? TimeSpan.MaxValue.Ticks : width.Ticks * count;
        var endTicks = Math.Min(DateTime.MaxValue.Ticks, start.Ticks > DateTime.MaxValue.Ticks - spanTicks ? DateTime.MaxValue.Ticks : start.Ticks + spanTicks);
        var span = TimeSpan.FromTicks(Math.Max(1, endTicks - start.Ticks));
        var step = TickStep(span);
        var format = step < TimeSpan.FromMinutes(1) ? "HH:mm:ss" : step < TimeSpan.FromDays(1) ? "HH:mm" : "yyyy-MM-dd";
        var firstTicks = (start.Ticks / step.Ticks) + (start.Ticks % step.Ticks == 0 ? 0 : 1);
        for (var k = 0L; k <= MaxTimeTicks; k++)
        {
            var multiple = firstTicks + k;
            if (multiple > endTicks / step.Ticks)
            {
                break;
            }

            var t = new DateTime(multiple * step.Ticks, DateTimeKind.Utc);
            var x = Left + ((t - start) / span * PlotWidth);
            sb.Append(Ci, $"<line class=\"axis\" x1=\"{x:0.#}\" y1=\"{Top + PlotHeight}\" x2=\"{x:0.#}\" y2=\"{Top + PlotHeight + 4}\"/>");
            sb.Append(Ci, $"<text class=\"tick\" x=\"{x:0.#}\" y=\"{Top + PlotHeight + 16}\" text-anchor=\"middle\">{t.ToString(format, Ci)}</text>");
        }

        var end = new DateTime(endTicks, DateTimeKind.Utc);
        var days = start.Date == end.AddTicks(-1).Date ? start.ToString("yyyy-MM-dd", Ci) : $"{start:yyyy-MM-dd} to {end.AddTicks(-1):yyyy-MM-dd}";
        XTitle(sb, string.Create(Ci, $"time (UTC, {days}); one step = {HtmlReportWriter.Span(width)}"));
    }

    /// <summary>The most labels a time axis carries.</summary>
    internal const int MaxTimeTicks = 7;

    /// <summary>The finest round interval that puts at most <see cref="MaxTimeTicks"/> labels on <paramref name="span"/>.</summary>
    internal static TimeSpan TickStep(TimeSpan span)
    {
        foreach (var s in TickSteps)
        {
            if (span / s <= MaxTimeTicks)
            {
                return s;
            }
        }

        var days = TickSteps[^1].Ticks / TimeSpan.TicksPerDay;
        while (span.Ticks / (days * TimeSpan.TicksPerDay) > MaxTimeTicks)
        {
            days *= 2;
        }

        return TimeSpan.FromDays(days);
    }

    private static readonly TimeSpan[] TickSteps =
    [
        TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(2), TimeSpan.FromSeconds(5), TimeSpan.FromSeconds(10), TimeSpan.FromSeconds(15),
        TimeSpan.FromSeconds(30), TimeSpan.FromMinutes(1), TimeSpan.FromMinutes(2), TimeSpan.FromMinutes(5), TimeSpan.FromMinutes(10),
        TimeSpan.FromMinutes(15), TimeSpan.FromMinutes(30), TimeSpan.FromHours(1), TimeSpan.FromHours(2), TimeSpan.FromHours(3),
        TimeSpan.FromHours(6), TimeSpan.FromHours(12), TimeSpan.FromDays(1), TimeSpan.FromDays(2), TimeSpan.FromDays(7),
    ];

    private static void Legend(StringBuilder sb, IReadOnlyList<ChartSeries> series)
    {
        var x = Left + PlotWidth;
        for (var i = series.Count - 1; i >= 0; i--)
        {
            var text = series[i].Name;
            x -= (int)(text.Length * 6.2) + 24;
            sb.Append(Ci, $"<rect class=\"key {series[i].CssClass}\" x=\"{x}\" y=\"{Top - 22}\" width=\"12\" height=\"12\"/>");
            sb.Append(Ci, $"<text class=\"legend\" x=\"{x + 16}\" y=\"{Top - 12}\">{E(text)}</text>");
        }
    }
}
