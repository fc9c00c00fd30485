using System.Globalization;
using System.Xml;
using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.Metadata;

namespace LogFlushMonitor.XEvent.Xml;

/// <summary>
/// Reads the targets' XML: ring_buffer (<c>&lt;RingBufferTarget&gt;</c>), package0.histogram
/// (<c>&lt;HistogramTarget&gt;</c>) and single event_data rows (<c>&lt;event&gt;</c>) from
/// sys.fn_xe_file_target_read_file. DTDs are refused, nothing external is resolved, and size is capped.
/// </summary>
public static class XEventXmlReader
{
    /// <summary>Default cap on characters per document (ring_buffer output is at most a few MB).</summary>
    public const long DefaultMaxCharacters = 64L * 1024 * 1024;

    /// <summary>Safe reader settings: no DTD, no resolver, bounded size.</summary>
    public static XmlReaderSettings CreateSettings(long maxCharacters = DefaultMaxCharacters) => new()
    {
        DtdProcessing = DtdProcessing.Prohibit,
        XmlResolver = null,
        MaxCharactersInDocument = maxCharacters,
        MaxCharactersFromEntities = 1024,
        IgnoreComments = true,
        IgnoreProcessingInstructions = true,
        IgnoreWhitespace = true,
        CloseInput = false,
    };

    /// <summary>Reads a ring_buffer target's XML.</summary>
    public static RingBufferContent ReadRingBuffer(string xml, string? sourceName = null, long maxCharacters = DefaultMaxCharacters)
    {
        ArgumentNullException.ThrowIfNull(xml);
        return Run(xml, sourceName, maxCharacters, r =>
        {
            ExpectRoot(r, "RingBufferTarget", sourceName);
            var content = new RingBufferContent(
                [],
                LongAttribute(r, "eventCount", sourceName),
                LongAttribute(r, "droppedCount", sourceName),
                LongAttribute(r, "totalEventsProcessed", sourceName),
                LongAttribute(r, "memoryUsed", sourceName));
            var events = new List<XEventData>();
            if (!r.IsEmptyElement)
            {
                var depth = r.Depth;
                r.Read();
                while (!(r.NodeType == XmlNodeType.EndElement && r.Depth == depth) && r.ReadState == ReadState.Interactive)
                {
                    if (r.NodeType == XmlNodeType.Element && r.LocalName == "event")
                    {
                        events.Add(ReadEvent(r, sourceName));
                    }
                    else if (r.NodeType == XmlNodeType.Element)
                    {
                        r.Skip();
                    }
                    else
                    {
                        r.Read();
                    }
                }
            }

            return content with { Events = events };
        });
    }

    /// <summary>Reads a histogram target's XML; <see cref="HistogramContent.Truncated"/> reports lost values.</summary>
    public static HistogramContent ReadHistogram(string xml, string? sourceName = null, long maxCharacters = DefaultMaxCharacters)
    {
        ArgumentNullException.ThrowIfNull(xml);
        return Run(xml, sourceName, maxCharacters, r =>
        {
            ExpectRoot(r, "HistogramTarget", sourceName);
            var truncated = r.GetAttribute("truncated") is { } t && t.Trim() != "0";
            var buckets = (int?)LongAttribute(r, "buckets", sourceName);
            var slots = new List<HistogramSlot>();
            if (!r.IsEmptyElement)
            {
                var depth = r.Depth;
                r.Read();
                while (!(r.NodeType == XmlNodeType.EndElement && r.Depth == depth) && r.ReadState == ReadState.Interactive)
                {
                    if (r.NodeType == XmlNodeType.Element && r.LocalName == "Slot")
                    {
                        var count = LongAttribute(r, "count", sourceName)
                            ?? throw Error(r, "Slot without a count attribute", sourceName);
                        string? value = null;
                        using (var slot = r.ReadSubtree())
                        {
                            while (slot.Read())
                            {
                                if (slot.NodeType == XmlNodeType.Element && slot.LocalName == "value")
                                {
                                    value = slot.ReadElementContentAsString();
                                    break;
                                }
                            }
                        }

                        slots.Add(new HistogramSlot(value ?? throw Error(r, "Slot without a value", sourceName), count));
                        r.Read();
                    }
                    else if (r.NodeType == XmlNodeType.Element)
                    {
                        r.Skip();
                    }
                    else
                    {
                        r.Read();
                    }
                }
            }

            return new HistogramContent(truncated, buckets, slots);
        });
    }

    /// <summary>Reads one event_data XML row (root <c>&lt;event&gt;</c>).</summary>
    public static XEventData ReadEventData(string xml, string? sourceName = null, long maxCharacters = DefaultMaxCharacters)
    {
        ArgumentNullException.ThrowIfNull(xml);
        return Run(xml, sourceName, maxCharacters, r =>
        {
            ExpectRoot(r, "event", sourceName);
            return ReadEvent(r, sourceName);
        });
    }

    private static T Run<T>(string xml, string? sourceName, long maxCharacters, Func<XmlReader, T> body)
    {
        try
        {
            using var text = new StringReader(xml);
            using var reader = XmlReader.Create(text, CreateSettings(maxCharacters));
            var result = body(reader);
            // Read to the end so that malformed trailing content is an error too; a reader left in the
            // error state (a failure inside a subtree) must not pass as success.
            while (reader.ReadState == ReadState.Interactive && reader.Read())
            {
            }

            if (reader.ReadState == ReadState.Error)
            {
                throw Error(reader, "Target XML is malformed", sourceName);
            }

            return result;
        }
        catch (XmlException ex)
        {
            var problem = ex.Message.Contains("DTD", StringComparison.OrdinalIgnoreCase)
                ? "DTDs are not allowed in target XML"
                : "Target XML is malformed, truncated or too large: " + ex.Message;
            throw new XEventXmlException(problem, sourceName, ex.LineNumber, ex.LinePosition, ex);
        }
    }

    private static void ExpectRoot(XmlReader r, string name, string? sourceName)
    {
        r.MoveToContent();
        if (r.NodeType != XmlNodeType.Element || r.LocalName != name)
        {
            throw Error(r, $"Expected root element <{name}>, found <{r.LocalName}>", sourceName);
        }
    }

    /// <summary>Reads an &lt;event&gt; element; the reader ends after it.</summary>
    private static XEventData ReadEvent(XmlReader r, string? sourceName)
    {
        var name = r.GetAttribute("name") ?? throw Error(r, "<event> without a name", sourceName);
        var package = r.GetAttribute("package") ?? string.Empty;
        DateTime? timestamp = null;
        if (r.GetAttribute("timestamp") is { Length: > 0 } ts)
        {
            if (!DateTimeOffset.TryParse(ts, CultureInfo.InvariantCulture, DateTimeStyles.AssumeUniversal, out var dto))
            {
                throw Error(r, $"Unreadable timestamp '{Shorten(ts)}'", sourceName);
            }

            timestamp = dto.UtcDateTime;
        }

        var fields = new Dictionary<string, object?>(StringComparer.Ordinal);
        var actions = new Dictionary<string, object?>(StringComparer.Ordinal);
        if (r.IsEmptyElement)
        {
            r.Read();
            return new XEventData(name, package, timestamp, fields, actions);
        }

        var depth = r.Depth;
        r.Read();
        while (!(r.NodeType == XmlNodeType.EndElement && r.Depth == depth) && r.ReadState == ReadState.Interactive)
        {
            if (r.NodeType == XmlNodeType.Element && (r.LocalName == "data" || r.LocalName == "action"))
            {
                var isAction = r.LocalName == "action";
                var itemName = r.GetAttribute("name") ?? throw Error(r, $"<{r.LocalName}> without a name", sourceName);
                var itemPackage = r.GetAttribute("package");
                var value = ReadValue(r);
                if (isAction)
                {
                    actions[string.IsNullOrEmpty(itemPackage) ? itemName : itemPackage + "." + itemName] = value;
                }
                else
                {
                    fields[itemName] = value;
                }
            }
            else if (r.NodeType == XmlNodeType.Element)
            {
                r.Skip();
            }
            else
            {
                r.Read();
            }
        }

        r.Read();
        return new XEventData(name, package, timestamp, fields, actions);
    }

    /// <summary>Reads &lt;type/&gt;, &lt;value&gt; and &lt;text&gt; of a data or action element into a typed value.</summary>
    private static object? ReadValue(XmlReader r)
    {
        string? typeName = null, value = null, text = null;
        using (var item = r.ReadSubtree())
        {
            item.Read(); // the data or action element itself
            item.Read();
            while (item.ReadState == ReadState.Interactive)
            {
                if (item.NodeType != XmlNodeType.Element)
                {
                    item.Read();
                    continue;
                }

                switch (item.LocalName)
                {
                    case "type":
                        typeName = item.GetAttribute("name");
                        item.Skip();
                        break;
                    case "value":
                        // xml-typed values hold markup: keep it as text. Both reads move past the element.
                        value = typeName == "xml" ? item.ReadInnerXml() : item.ReadElementContentAsString();
                        break;
                    case "text":
                        text = item.ReadElementContentAsString();
                        break;
                    default:
                        item.Skip();
                        break;
                }
            }
        }

        r.Read();
        return Convert(typeName, value, text);
    }

    private static object? Convert(string? typeName, string? value, string? text)
    {
        if (value is null)
        {
            return text;
        }

        var inv = CultureInfo.InvariantCulture;
        var v = value.Trim();
        var baseType = XEventBaseTypes.FromName(typeName);
        switch (baseType)
        {
            case XEventBaseType.Int8 or XEventBaseType.Int16 or XEventBaseType.Int32 or XEventBaseType.Int64:
                return long.TryParse(v, NumberStyles.Integer, inv, out var l) ? l : value;
            case XEventBaseType.UInt8 or XEventBaseType.UInt16 or XEventBaseType.UInt32 or XEventBaseType.UInt64
                or XEventBaseType.CpuCycle or XEventBaseType.FileTime:
                return ulong.TryParse(v, NumberStyles.Integer, inv, out var u) ? u : value;
            case XEventBaseType.Pointer or XEventBaseType.GuidPointer:
                return TryParseHexOrDecimal(v, out var p) ? p : value;
            case XEventBaseType.Float32 or XEventBaseType.Float64:
                return double.TryParse(v, NumberStyles.Float, inv, out var d) ? d : value;
            case XEventBaseType.Boolean:
                return bool.TryParse(v, out var b) ? b : value;
            case XEventBaseType.Guid:
                return Guid.TryParse(v, out var g) ? g : value;
            case XEventBaseType.BinaryData:
                return TryParseHex(v, out var bytes) ? bytes : value;
            case XEventBaseType.Unknown when typeName is not null && text is not null:
                // A map type: the value is the key, the text its name.
                return ulong.TryParse(v, NumberStyles.Integer, inv, out var key) ? new XEventMapValue(key, text) : text;
            case XEventBaseType.Unknown when typeName is null:
                // event_data rows carry no <type>: infer from the text.
                if (ulong.TryParse(v, NumberStyles.None, inv, out var k))
                {
                    return text is not null ? new XEventMapValue(k, text) : k;
                }

                return long.TryParse(v, NumberStyles.AllowLeadingSign, inv, out var s) ? s : value;
            default:
                return value;
        }
    }

    private static bool TryParseHexOrDecimal(string v, out ulong value)
    {
        if (v.StartsWith("0x", StringComparison.OrdinalIgnoreCase))
        {
            return ulong.TryParse(v.AsSpan(2), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out value);
        }

        return ulong.TryParse(v, NumberStyles.Integer, CultureInfo.InvariantCulture, out value);
    }

    private static bool TryParseHex(string v, out byte[] bytes)
    {
        var s = v.StartsWith("0x", StringComparison.OrdinalIgnoreCase) ? v[2..] : v;
        try
        {
            bytes = System.Convert.FromHexString(s);
            return true;
        }
        catch (FormatException)
        {
            bytes = [];
            return false;
        }
    }

    private static long? LongAttribute(XmlReader r, string name, string? sourceName)
    {
        var a = r.GetAttribute(name);
        if (a is null)
        {
            return null;
        }

        return long.TryParse(a, NumberStyles.Integer, CultureInfo.InvariantCulture, out var v)
            ? v
            : throw Error(r, $"Attribute {name}='{Shorten(a)}' is not an integer", sourceName);
    }

    private static string Shorten(string s) => s.Length <= 64 ? s : s[..64] + "…";

    private static XEventXmlException Error(XmlReader r, string problem, string? sourceName)
    {
        var info = r as IXmlLineInfo;
        return new XEventXmlException(problem, sourceName, info?.LineNumber ?? 0, info?.LinePosition ?? 0);
    }
}
