namespace LogFlushMonitor.XEvent.Binary;

/// <summary>
/// Every row of <c>sys.fn_MSxe_read_event_stream</c> a reader received, counted by its <c>type</c> column (0 to 3 each,
/// any other value together): no row is skipped uncounted, whatever becomes of it. Microsoft documents the column only as
/// "the event type"; what each number holds is a belief (docs/sqlserver.md, "The live stream's rows"), so the count
/// keeps the server's own number. Written by the one reading thread, read from any thread.
/// </summary>
public sealed class LiveStreamRowTally
{
    /// <summary>The row types counted one by one (<see cref="LiveStreamRowType"/>); <see cref="Other"/> holds the rest.</summary>
    public const int Known = 4;

    /// <summary>The index of every type outside 0 to 3.</summary>
    public const int Other = Known;

    /// <summary>The exported name of each index: the type's number, or "other".</summary>
    public static IReadOnlyList<string> Names { get; } = ["0", "1", "2", "3", "other"];

    private readonly long[] _rows = new long[Known + 1];
    private readonly long[] _bytes = new long[Known + 1];
    private long _nullData;

    /// <summary>The index a row of <paramref name="type"/> is counted under.</summary>
    public static int IndexOf(int type) => (uint)type < Known ? type : Other;

    /// <summary>Counts one row of <paramref name="type"/> with <paramref name="length"/> bytes of data (-1: NULL).</summary>
    public void Count(int type, int length)
    {
        var i = IndexOf(type);
        Interlocked.Increment(ref _rows[i]);
        if (length < 0)
        {
            Interlocked.Increment(ref _nullData);
        }
        else
        {
            Interlocked.Add(ref _bytes[i], length);
        }
    }

    /// <summary>Rows counted under index <paramref name="index"/> (a type 0 to 3, or <see cref="Other"/>).</summary>
    public long Rows(int index) => Interlocked.Read(ref _rows[index]);

    /// <summary>Bytes of data of the rows under index <paramref name="index"/>.</summary>
    public long Bytes(int index) => Interlocked.Read(ref _bytes[index]);

    /// <summary>Rows whose data was NULL (the column is nullable).</summary>
    public long NullData => Interlocked.Read(ref _nullData);

    /// <summary>Every row counted.</summary>
    public long Total
    {
        get
        {
            long total = 0;
            for (var i = 0; i <= Known; i++)
            {
                total += Rows(i);
            }

            return total;
        }
    }

    /// <summary>The counts as people read them: "type 0: 12, type 1: 3, type 2: 1" (types never seen are left out; "none" when empty).</summary>
    public string Describe()
    {
        var parts = new List<string>();
        for (var i = 0; i <= Known; i++)
        {
            if (Rows(i) > 0)
            {
                parts.Add(string.Create(System.Globalization.CultureInfo.InvariantCulture, $"{(i == Other ? "other types" : "type " + Names[i])}: {Rows(i):N0}"));
            }
        }

        return parts.Count == 0 ? "none" : string.Join(", ", parts);
    }
}
