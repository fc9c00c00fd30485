using System.Text.RegularExpressions;
using LogFlushMonitor.Tests.Deploy;

namespace LogFlushMonitor.Tests.EndToEnd;

/// <summary>
/// The shipped deploy/alertmanager/alertmanager.yml made fit for a test stack, mechanically: each receiver's webhook
/// URL points to the test's receiver (<c>base/receiver-name</c>), and the route's timing (<c>group_wait</c>,
/// <c>group_interval</c>, <c>repeat_interval</c>) is divided by the same factor as the rules. Routing, grouping,
/// matchers, inhibitions and <c>send_resolved</c> stay as shipped.
/// </summary>
internal static partial class AlertmanagerForTest
{
    public static string Rewrite(string shipped, string receiverBaseUrl, double factor)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(factor, 1.0);
        var lines = shipped.Split('\n');
        string? receiver = null;
        var inReceivers = false;
        for (var i = 0; i < lines.Length; i++)
        {
            var line = lines[i];
            if (TopLevelKeyRegex().Match(line) is { Success: true } top)
            {
                inReceivers = top.Groups[1].Value == "receivers";
            }

            if (inReceivers && ReceiverNameRegex().Match(line) is { Success: true } name)
            {
                receiver = name.Groups[1].Value;
            }
            else if (inReceivers && UrlRegex().Match(line) is { Success: true } url)
            {
                lines[i] = url.Groups["key"].Value + receiverBaseUrl.TrimEnd('/') + "/" + (receiver ?? throw new InvalidDataException("a url before any receiver name"));
            }
            else if (TimingRegex().Match(line) is { Success: true } timing)
            {
                lines[i] = timing.Groups["key"].Value + RuleScaling.Format(Math.Max(1, (long)Math.Round(RuleScaling.Milliseconds(timing.Groups["d"].Value) / factor)));
            }
        }

        return string.Join('\n', lines);
    }

    /// <summary>Whether <paramref name="line"/> is one that <see cref="Rewrite"/> may change.</summary>
    public static bool IsRewritable(string line) => UrlRegex().IsMatch(line) || TimingRegex().IsMatch(line);

    [GeneratedRegex(@"^([A-Za-z_]+):")]
    private static partial Regex TopLevelKeyRegex();

    [GeneratedRegex(@"^\s*-\s*name:\s*(\S+)\s*$")]
    private static partial Regex ReceiverNameRegex();

    [GeneratedRegex(@"^(?<key>\s*(?:-\s*)?url:\s*)\S+\s*$")]
    private static partial Regex UrlRegex();

    [GeneratedRegex(@"^(?<key>\s*(?:group_wait|group_interval|repeat_interval):\s*)(?<d>(?:\d+(?:ms|[smhdwy]))+)\s*$")]
    private static partial Regex TimingRegex();
}
