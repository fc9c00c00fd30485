namespace LogFlushMonitor.Analysis;

/// <summary>An event that was read but could not be used (a value out of range), with where it is.</summary>
/// <param name="Offset">Byte offset of the event record in its file.</param>
/// <param name="Problem">What is wrong, e.g. "log_flush_start database_id 2000000 is out of range (0 to 32767)".</param>
internal sealed record MalformedEvent(long Offset, string Problem);

/// <summary>What one reading thread counted of one input file. Merged per file after reading.</summary>
internal sealed class FileTally
{
    /// <summary>How many malformed events are named (the first in the file); the rest are counted.</summary>
    public const int MalformedSamples = 5;

    private readonly List<MalformedEvent> _malformed = [];

    /// <summary>log_flush_start events counted.</summary>
    public long FlushStarts { get; set; }

    /// <summary>log_flush_complete events counted.</summary>
    public long FlushCompletes { get; set; }

    /// <summary>WRITELOG waits counted.</summary>
    public long WriteLogWaits { get; set; }

    /// <summary>Events skipped as malformed.</summary>
    public long Malformed { get; private set; }

    /// <summary>The first <see cref="MalformedSamples"/> malformed events by offset.</summary>
    public IReadOnlyList<MalformedEvent> MalformedEvents => _malformed;

    /// <summary>Events of other kinds by full name.</summary>
    public Dictionary<string, long> OtherEvents { get; } = new(StringComparer.Ordinal);

    /// <summary>Completed waits of other types by wait type.</summary>
    public Dictionary<string, long> OtherWaits { get; } = new(StringComparer.Ordinal);

    /// <summary>True when a malformed event at <paramref name="offset"/> would be among the named ones (build the text only then).</summary>
    public bool KeepsMalformedAt(long offset) => _malformed.Count < MalformedSamples || offset < _malformed[^1].Offset;

    /// <summary>Counts a malformed event, naming it when it is among the first (<paramref name="problem"/> null: count only).</summary>
    public void AddMalformed(long offset, string? problem)
    {
        Malformed++;
        if (problem is not null && KeepsMalformedAt(offset))
        {
            Keep(new MalformedEvent(offset, problem));
        }
    }

    /// <summary>Counts <paramref name="count"/> malformed events without naming them.</summary>
    public void AddMalformedCount(long count) => Malformed = Saturating.Add(Malformed, count);

    /// <summary>Adds <paramref name="other"/>'s counts (the same file, another thread's share).</summary>
    public void AddFrom(FileTally other)
    {
        FlushStarts += other.FlushStarts;
        FlushCompletes += other.FlushCompletes;
        WriteLogWaits += other.WriteLogWaits;
        Malformed += other.Malformed;
        foreach (var m in other._malformed)
        {
            if (KeepsMalformedAt(m.Offset))
            {
                Keep(m);
            }
        }

        Add(OtherEvents, other.OtherEvents);
        Add(OtherWaits, other.OtherWaits);
    }

    private void Keep(MalformedEvent m)
    {
        var at = _malformed.FindIndex(x => x.Offset > m.Offset);
        _malformed.Insert(at < 0 ? _malformed.Count : at, m);
        if (_malformed.Count > MalformedSamples)
        {
            _malformed.RemoveAt(_malformed.Count - 1);
        }
    }

    private static void Add(Dictionary<string, long> into, Dictionary<string, long> from)
    {
        foreach (var (key, count) in from)
        {
            into[key] = into.GetValueOrDefault(key) + count;
        }
    }
}
