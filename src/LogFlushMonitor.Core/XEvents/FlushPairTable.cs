using System.Runtime.CompilerServices;

namespace LogFlushMonitor.Core.XEvents;

/// <summary>Flushes of one database started and not (yet) completed, as a scrape or summary reads them.</summary>
/// <param name="DatabaseId">database_id.</param>
/// <param name="Count">log_flush_start events still waiting for their log_flush_complete.</param>
/// <param name="OldestStartUtc">Timestamp of the oldest of them (its age is the scrape time minus this).</param>
public readonly record struct OutstandingFlushes(int DatabaseId, int Count, DateTime OldestStartUtc);

/// <summary>A start the table let go of without its complete (kept by analyze, which pairs across threads at the end).</summary>
/// <param name="DatabaseId">database_id.</param>
/// <param name="LogBlockId">log_block_id.</param>
/// <param name="StartTicks">The start's timestamp, UTC <see cref="DateTime.Ticks"/>.</param>
public readonly record struct UnpairedStart(int DatabaseId, ulong LogBlockId, long StartTicks);

/// <summary>
/// Pairs <c>log_flush_start</c> with its <c>log_flush_complete</c> on (database_id, log_block_id), so flush latency is
/// the time between the two events (100 ns resolution) instead of the complete's duration field (milliseconds, which
/// makes most SSD flushes 0). Bounded: a fixed number of outstanding starts in preallocated arrays, nothing allocated
/// per event (only when a database is seen for the first time).
/// </summary>
/// <remarks>
/// <para>What happens to a start whose complete never comes:</para>
/// <list type="bullet">
/// <item>When a later complete of the <em>same database</em> arrives more than <see cref="Grace"/> after the start, the
/// start is retired as unmatched (<see cref="Retired"/>): its database is completing flushes, so the complete event was
/// lost (a full session buffer drops events), not late.</item>
/// <item>When nothing of that database completes (the log device stalls), its starts stay and age:
/// <see cref="Outstanding()"/> reports how many and the oldest, which is what a stall alert needs.</item>
/// <item>When the table is full, the oldest start of the database being added (else of the database with most starts)
/// makes room (<see cref="Evicted"/>).</item>
/// </list>
/// <para>One thread writes (the source's reading thread). With <c>concurrentReaders</c>, <see cref="Outstanding()"/>
/// may be called from any thread at any time (a sequence lock: the writer bumps a version around each change, a reader
/// retries until it read a quiet table); without it, only the writing thread may read.</para>
/// </remarks>
public sealed class FlushPairTable
{
    /// <summary>Outstanding starts kept at most by default (a database has at most a few hundred log writes in flight).</summary>
    public const int DefaultCapacity = 4096;

    /// <summary>How long after a start a later complete of the same database retires it as unmatched, by default.</summary>
    public static readonly TimeSpan DefaultGrace = TimeSpan.FromSeconds(10);

    private readonly Entry[] _entries;
    private readonly int[] _slots; // entry index + 1, 0 = empty (linear probing, backward-shift deletion)
    private readonly int _mask;
    private readonly long _graceTicks;
    private readonly bool _concurrent;
    private int[] _queueByDb = new int[64]; // queue index + 1 by database_id (0 to 32,767), 0 = none yet
    private Dictionary<int, int>? _queueOfOther; // ids outside 0 to 32,767 (damaged values the caller passed on)
    private readonly List<UnpairedStart>? _spill;
    private readonly int _spillCapacity;
    private Queue[] _queues = new Queue[8];
    private int _queueCount;
    private int _free = -1;
    private int _used; // entries handed out at least once (the rest are free without being on the list)
    private int _count;
    private int _lastDb = int.MinValue;
    private int _lastQueue = -1;
    private int _version;

    /// <summary>Creates a table of <paramref name="capacity"/> outstanding starts.</summary>
    /// <param name="capacity">Outstanding starts kept at most.</param>
    /// <param name="grace">How long after its start a start is retired by a later complete of its database (default <see cref="DefaultGrace"/>).</param>
    /// <param name="concurrentReaders">Whether <see cref="Outstanding()"/> is called from other threads than the writer's.</param>
    /// <param name="spillCapacity">
    /// When above 0, starts retired after the grace period go to <see cref="Spilled"/> (up to this many) instead of
    /// being counted as unmatched: analyze pairs what one thread's table let go of with the completes another thread
    /// saw (a worker that decodes every other buffer retires a start whose complete is in a buffer it never sees).
    /// </param>
    public FlushPairTable(int capacity = DefaultCapacity, TimeSpan? grace = null, bool concurrentReaders = false, int spillCapacity = 0)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(capacity, 1);
        _entries = new Entry[capacity];
        var slots = 2;
        while (slots < capacity * 2)
        {
            slots *= 2;
        }

        _slots = new int[slots];
        _mask = slots - 1;
        Grace = grace ?? DefaultGrace;
        _graceTicks = Grace.Ticks;
        _concurrent = concurrentReaders;
        _spillCapacity = spillCapacity;
        _spill = spillCapacity > 0 ? [] : null;
    }

    /// <summary>Capacity in outstanding starts.</summary>
    public int Capacity => _entries.Length;

    /// <summary>See the constructor.</summary>
    public TimeSpan Grace { get; }

    /// <summary>Starts outstanding now.</summary>
    public int Count => _count;

    /// <summary>Starts added.</summary>
    public long Starts { get; private set; }

    /// <summary>Completes that found their start.</summary>
    public long Matched { get; private set; }

    /// <summary>Starts retired as unmatched: a later complete of their database came more than <see cref="Grace"/> after them.</summary>
    public long Retired { get; private set; }

    /// <summary>Starts dropped to make room (the table was full).</summary>
    public long Evicted { get; private set; }

    /// <summary>Starts replaced by a newer start with the same database and log block (the older one never completed).</summary>
    public long Replaced { get; private set; }

    /// <summary>Starts retired without their complete, when the table spills (see the constructor).</summary>
    public IReadOnlyList<UnpairedStart> Spilled => _spill ?? (IReadOnlyList<UnpairedStart>)[];

    /// <summary>Records a log_flush_start at <paramref name="startTicks"/> (UTC ticks).</summary>
    public void Start(int databaseId, ulong logBlockId, long startTicks)
    {
        BeginWrite();
        var queue = QueueOf(databaseId);
        var slot = Probe(databaseId, logBlockId);
        if (slot >= 0)
        {
            Remove(_slots[slot] - 1, slot);
            Replaced++;
            slot = Probe(databaseId, logBlockId);
        }

        if (_count == _entries.Length)
        {
            Evict(queue);
            slot = Probe(databaseId, logBlockId); // the eviction may have moved entries of this probe run
        }

        var e = Allocate();
        ref var entry = ref _entries[e];
        entry.Db = databaseId;
        entry.Block = logBlockId;
        entry.Ticks = startTicks;
        entry.Queue = queue;
        ref var q = ref _queues[queue];
        entry.Prev = q.Tail;
        entry.Next = -1;
        if (q.Tail >= 0)
        {
            _entries[q.Tail].Next = e;
        }
        else
        {
            q.Head = e;
        }

        q.Tail = e;
        q.Count++;
        _slots[~slot] = e + 1; // the empty slot the probe ended on
        _count++;
        Starts++;
        EndWrite();
    }

    /// <summary>
    /// Records a log_flush_complete at <paramref name="completeTicks"/>: true with its start's time when the start is
    /// outstanding (it is removed). Either way, starts of the same database older than <see cref="Grace"/> before
    /// this complete are retired as unmatched.
    /// </summary>
    public bool TryComplete(int databaseId, ulong logBlockId, long completeTicks, out long startTicks)
    {
        BeginWrite();
        startTicks = 0;
        var found = false;
        var queue = -1;
        var slot = Find(databaseId, logBlockId);
        if (slot >= 0)
        {
            var e = _slots[slot] - 1;
            startTicks = _entries[e].Ticks;
            queue = _entries[e].Queue;
            Remove(e, slot);
            Matched++;
            found = true;
        }
        else if (databaseId == _lastDb)
        {
            queue = _lastQueue;
        }
        else if ((uint)databaseId < (uint)_queueByDb.Length && _queueByDb[databaseId] > 0)
        {
            queue = _queueByDb[databaseId] - 1;
        }
        else if (_queueOfOther?.TryGetValue(databaseId, out var other) == true)
        {
            queue = other;
        }

        if (queue >= 0)
        {
            RetireOlderThan(queue, completeTicks - _graceTicks);
        }

        EndWrite();
        return found;
    }

    /// <summary>
    /// Retires every outstanding start as unmatched (counted in <see cref="Retired"/>); returns how many. For when the
    /// source lost its view of them: a reconnected stream (the events in flight when the connection dropped, completes
    /// among them, are gone) or a restarted instance (those flushes will never complete).
    /// </summary>
    public int RetireAll()
    {
        BeginWrite();
        var retired = 0;
        for (var k = 0; k < _queueCount; k++)
        {
            while (_queues[k].Head is var head and >= 0)
            {
                Remove(head, Find(_entries[head].Db, _entries[head].Block));
                retired++;
            }
        }

        Retired += retired;
        EndWrite();
        return retired;
    }

    /// <summary>The outstanding starts of every database that has some (safe from any thread with <c>concurrentReaders</c>).</summary>
    public IReadOnlyList<OutstandingFlushes> Outstanding()
    {
        var result = new List<OutstandingFlushes>();
        Read(result, -1);
        return result;
    }

    /// <summary>The outstanding starts of one database (Count 0 when none).</summary>
    public OutstandingFlushes Outstanding(int databaseId)
    {
        var result = new List<OutstandingFlushes>(1);
        Read(result, databaseId);
        return result.Count > 0 ? result[0] : new OutstandingFlushes(databaseId, 0, default);
    }

    /// <summary>Every start still outstanding (analyze's end-of-input pairing; the writing thread only).</summary>
    public IEnumerable<UnpairedStart> Remaining()
    {
        for (var k = 0; k < _queueCount; k++)
        {
            for (var e = _queues[k].Head; e >= 0; e = _entries[e].Next)
            {
                yield return new UnpairedStart(_entries[e].Db, _entries[e].Block, _entries[e].Ticks);
            }
        }
    }

    private void Read(List<OutstandingFlushes> into, int onlyDatabase)
    {
        var spin = default(SpinWait);
        for (var attempt = 0; ; attempt++)
        {
            into.Clear();
            var before = Volatile.Read(ref _version);
            if ((before & 1) != 0 && _concurrent)
            {
                spin.SpinOnce();
                continue;
            }

            var queues = Volatile.Read(ref _queues);
            var n = Math.Min(Volatile.Read(ref _queueCount), queues.Length);
            for (var k = 0; k < n; k++)
            {
                var q = queues[k];
                if (q.Count <= 0 || (onlyDatabase >= 0 && q.Db != onlyDatabase) || (uint)q.Head >= (uint)_entries.Length)
                {
                    continue;
                }

                var ticks = _entries[q.Head].Ticks;
                into.Add(new OutstandingFlushes(q.Db, q.Count, new DateTime(Math.Clamp(ticks, 0, DateTime.MaxValue.Ticks), DateTimeKind.Utc)));
            }

            Interlocked.MemoryBarrier();
            if (!_concurrent || Volatile.Read(ref _version) == before || attempt > 10_000)
            {
                return;
            }

            spin.SpinOnce();
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void BeginWrite()
    {
        if (_concurrent)
        {
            Volatile.Write(ref _version, _version + 1);
            Interlocked.MemoryBarrier();
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void EndWrite()
    {
        if (_concurrent)
        {
            Volatile.Write(ref _version, _version + 1);
        }
    }

    private int QueueOf(int databaseId)
    {
        if (databaseId == _lastDb)
        {
            return _lastQueue;
        }

        const int MaxId = 32_767;
        if ((uint)databaseId >= (uint)_queueByDb.Length && (uint)databaseId <= MaxId)
        {
            // Grown when a larger database_id appears, not per event.
            Array.Resize(ref _queueByDb, Math.Max(databaseId + 1, Math.Min(_queueByDb.Length * 2, MaxId + 1)));
        }

        var queue = (uint)databaseId < (uint)_queueByDb.Length ? _queueByDb[databaseId] - 1
            : _queueOfOther?.TryGetValue(databaseId, out var other) == true ? other : -1;
        if (queue < 0)
        {
            if (_queueCount == _queues.Length)
            {
                var bigger = new Queue[_queues.Length * 2];
                _queues.AsSpan().CopyTo(bigger);
                Volatile.Write(ref _queues, bigger);
            }

            queue = _queueCount;
            _queues[queue] = new Queue { Db = databaseId, Head = -1, Tail = -1 };
            Volatile.Write(ref _queueCount, _queueCount + 1);
            if ((uint)databaseId < (uint)_queueByDb.Length)
            {
                _queueByDb[databaseId] = queue + 1;
            }
            else
            {
                (_queueOfOther ??= [])[databaseId] = queue;
            }
        }

        _lastDb = databaseId;
        _lastQueue = queue;
        return queue;
    }

    private void RetireOlderThan(int queue, long before)
    {
        while (_queues[queue].Head is var head and >= 0 && _entries[head].Ticks < before)
        {
            if (!LetGo(head))
            {
                Retired++;
            }
        }
    }

    private void Evict(int queue)
    {
        var victim = queue;
        if (_queues[queue].Count == 0)
        {
            for (var k = 0; k < _queueCount; k++)
            {
                if (_queues[k].Count > _queues[victim].Count)
                {
                    victim = k;
                }
            }
        }

        // Not spilled: a start with a whole table of newer starts behind it will not complete any more, and a file of
        // starts whose completes are not collected would otherwise fill the spill list for nothing.
        var head = _queues[victim].Head;
        Remove(head, Find(_entries[head].Db, _entries[head].Block));
        Evicted++;
    }

    /// <summary>Retires a start without its complete; true when it went to the spill list (then it is not counted here).</summary>
    private bool LetGo(int e)
    {
        var spilled = _spill is not null && _spill.Count < _spillCapacity;
        if (spilled)
        {
            _spill!.Add(new UnpairedStart(_entries[e].Db, _entries[e].Block, _entries[e].Ticks));
        }

        Remove(e, Find(_entries[e].Db, _entries[e].Block));
        return spilled;
    }

    private void Remove(int e, int slot)
    {
        ref var entry = ref _entries[e];
        ref var q = ref _queues[entry.Queue];
        if (entry.Prev >= 0)
        {
            _entries[entry.Prev].Next = entry.Next;
        }
        else
        {
            q.Head = entry.Next;
        }

        if (entry.Next >= 0)
        {
            _entries[entry.Next].Prev = entry.Prev;
        }
        else
        {
            q.Tail = entry.Prev;
        }

        q.Count--;
        RemoveSlot(slot);
        entry.Next = _free;
        _free = e;
        _count--;
    }

    private int Allocate()
    {
        if (_free >= 0)
        {
            var e = _free;
            _free = _entries[e].Next;
            return e;
        }

        return _used++;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int Hash(int databaseId, ulong logBlockId)
    {
        var x = (logBlockId * 0x9E3779B97F4A7C15UL) ^ ((ulong)(uint)databaseId * 0xC2B2AE3D27D4EB4FUL);
        return (int)(x >> 33);
    }

    /// <summary>The slot holding (database, block), or the complement of the empty slot where its probe run ends.</summary>
    private int Probe(int databaseId, ulong logBlockId)
    {
        var i = Hash(databaseId, logBlockId) & _mask;
        while (true)
        {
            var s = _slots[i];
            if (s == 0)
            {
                return ~i;
            }

            ref var entry = ref _entries[s - 1];
            if (entry.Block == logBlockId && entry.Db == databaseId)
            {
                return i;
            }

            i = (i + 1) & _mask;
        }
    }

    private int Find(int databaseId, ulong logBlockId)
    {
        var slot = Probe(databaseId, logBlockId);
        return slot >= 0 ? slot : -1;
    }

    /// <summary>Empties slot <paramref name="i"/> and moves later entries of its probe run back, so lookups need no tombstones.</summary>
    private void RemoveSlot(int i)
    {
        var j = i;
        while (true)
        {
            _slots[i] = 0;
            while (true)
            {
                j = (j + 1) & _mask;
                var s = _slots[j];
                if (s == 0)
                {
                    return;
                }

                var ideal = Hash(_entries[s - 1].Db, _entries[s - 1].Block) & _mask;
                var stays = i <= j ? i < ideal && ideal <= j : i < ideal || ideal <= j;
                if (!stays)
                {
                    _slots[i] = s;
                    i = j;
                    break;
                }
            }
        }
    }

    private struct Entry
    {
        public ulong Block;
        public long Ticks;
        public int Db;
        public int Queue;
        public int Prev;
        public int Next;
    }

    private struct Queue
    {
        public int Db;
        public int Head;
        public int Tail;
        public int Count;
    }
}
