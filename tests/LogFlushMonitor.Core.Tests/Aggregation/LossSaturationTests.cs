using LogFlushMonitor.Core.Aggregation;
using LogFlushMonitor.Core.Samples;

namespace LogFlushMonitor.Core.Tests.Aggregation;

/// <summary>Issue 31, item 1: losses add up without wrapping, whatever a recording's loss lines say.</summary>
public class LossSaturationTests
{
    [Fact]
    public void Source_losses_saturate_at_the_largest_count_instead_of_wrapping_negative()
    {
        var agg = new LogFlushAggregator();
        agg.OnSourceLoss("sql1", LossKind.SequenceGap, long.MaxValue);
        agg.OnSourceLoss("sql1", LossKind.SequenceGap, long.MaxValue);
        agg.OnSourceLoss("sql1", LossKind.SequenceGap, 1_000);

        var i = agg.SnapshotInstances().Single();
        Assert.Equal(long.MaxValue, i.LostSequenceGap);
    }
}
