using System.Text;
using OpenTelemetry;

namespace LogFlushMonitor.Prometheus.Exposition;

/// <summary>
/// Attribute keys as Prometheus label names (sanitised, UTF-8), cached for the renderer's life, and whether two keys of
/// one point sanitise to the same name: one owner for both expositions, text and protobuf. Not thread-safe, as the
/// renderers that hold it.
/// </summary>
internal sealed class LabelNames
{
    private readonly Dictionary<string, byte[]> _names = new(StringComparer.Ordinal);

    /// <summary>The label name of <paramref name="key"/>; allocates on a key's first sight only.</summary>
    public byte[] Of(string key)
    {
        if (!_names.TryGetValue(key, out var bytes))
        {
            bytes = Encoding.UTF8.GetBytes(PrometheusNames.SanitizeLabelName(key));
            _names[key] = bytes;
        }

        return bytes;
    }

    /// <summary>Whether two of <paramref name="tags"/> give the same label name (then their values are merged: the rare path).</summary>
    public bool Collide(ReadOnlyTagCollection tags)
    {
        if (tags.Count < 2)
        {
            return false;
        }

        // Tag keys are distinct, so only their sanitised forms can clash ("a.b" and "a_b").
        var i = 0;
        foreach (var a in tags)
        {
            var j = 0;
            var nameA = Of(a.Key);
            foreach (var b in tags)
            {
                if (j++ > i && nameA.AsSpan().SequenceEqual(Of(b.Key)))
                {
                    return true;
                }
            }

            i++;
        }

        return false;
    }
}
