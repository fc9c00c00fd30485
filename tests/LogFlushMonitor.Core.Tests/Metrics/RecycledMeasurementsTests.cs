using System.Diagnostics.Metrics;
using LogFlushMonitor.Core.Metrics;

namespace LogFlushMonitor.Core.Tests.Metrics;

public sealed class RecycledMeasurementsTests
{
    [Fact]
    public void A_list_enumerated_to_the_end_goes_back_to_its_slot_empty_and_keeps_its_array()
    {
        var slots = new RecycledMeasurements<long>?[1];
        var first = RecycledMeasurements<long>.Take(slots, 0);
        for (var i = 0; i < 5000; i++)
        {
            first.Items.Add(new(i));
        }

        var capacity = first.Items.Capacity;
        Assert.Null(slots[0]); // out while in use
        Assert.Equal(Enumerable.Range(0, 5000).Select(i => (long)i), first.Select(m => m.Value)); // LINQ disposes the enumerator

        Assert.Same(first, slots[0]);
        var second = RecycledMeasurements<long>.Take(slots, 0);
        Assert.Same(first, second);
        Assert.Empty(second.Items);
        Assert.Equal(capacity, second.Items.Capacity);
    }

    [Fact]
    public void A_collection_that_overlaps_another_gets_a_list_of_its_own()
    {
        var slots = new RecycledMeasurements<double>?[2];
        var a = RecycledMeasurements<double>.Take(slots, 1);
        a.Items.Add(new(1.5));
        var b = RecycledMeasurements<double>.Take(slots, 1); // a is still being read
        b.Items.Add(new(2.5));

        Assert.NotSame(a, b);
        Assert.Equal([1.5], a.Select(m => m.Value));
        Assert.Equal([2.5], b.Select(m => m.Value));
        Assert.Null(slots[0]);
    }

    [Fact]
    public void Through_a_real_listener_every_collection_sees_the_current_values_only()
    {
        using var meter = new Meter("RecycledMeasurementsTests");
        var slots = new RecycledMeasurements<long>?[1];
        long value = 0;
        meter.CreateObservableCounter("c", () =>
        {
            var batch = RecycledMeasurements<long>.Take(slots, 0);
            batch.Items.Add(new(value, new KeyValuePair<string, object?>("k", "a")));
            batch.Items.Add(new(value * 10, new KeyValuePair<string, object?>("k", "b")));
            return batch;
        });
        var seen = new List<(long Value, string Tag)>();
        using var listener = new MeterListener();
        listener.InstrumentPublished = (i, l) =>
        {
            if (i.Meter == meter)
            {
                l.EnableMeasurementEvents(i);
            }
        };
        listener.SetMeasurementEventCallback<long>((_, v, tags, _) => seen.Add((v, (string)tags[0].Value!)));
        listener.Start();

        RecycledMeasurements<long>? used = null;
        for (value = 1; value <= 3; value++)
        {
            seen.Clear();
            listener.RecordObservableInstruments();
            Assert.Equal([(value, "a"), (value * 10, "b")], seen);
            Assert.NotNull(slots[0]); // parked again after the listener read it
            used ??= slots[0];
            Assert.Same(used, slots[0]);
        }
    }
}
