using System.Text;
using LogFlushMonitor.XEvent.Xml;

namespace LogFlushMonitor.XEvent.Tests;

/// <summary>Mutated target XML: every run parses or raises XEventXmlException, nothing else.</summary>
public class XmlFuzzTests
{
    private const string Histogram = """
        <HistogramTarget truncated="0" buckets="256"><Slot count="12031"><value>512</value></Slot><Slot count="57"><value>61440</value></Slot></HistogramTarget>
        """;

    private const string Ring = """
        <RingBufferTarget eventCount="1" droppedCount="0" memoryUsed="10"><event name="log_flush_start" package="sqlserver" timestamp="2026-11-22T10:00:01.123Z"><data name="write_size"><type name="uint32" package="package0" /><value>512</value></data><data name="wait_type"><type name="wait_types" package="sqlos" /><value>182</value><text>WRITELOG</text></data><action name="database_name" package="sqlserver"><type name="unicode_string" package="package0" /><value>shop</value></action></event></RingBufferTarget>
        """;

    [Fact]
    public async Task Target_xml_mutated_2000_times_parses_or_raises_the_typed_error()
    {
        var rng = new Random(77);
        const string alphabet = "<>/=\"'&;!?[]-x0 \n";
        var errors = 0;
        for (var i = 0; i < 2000; i++)
        {
            var source = i % 2 == 0 ? Histogram : Ring;
            var sb = new StringBuilder(source);
            for (var k = rng.Next(1, 5); k > 0; k--)
            {
                var at = rng.Next(sb.Length);
                switch (rng.Next(3))
                {
                    case 0:
                        sb[at] = alphabet[rng.Next(alphabet.Length)];
                        break;
                    case 1:
                        sb.Remove(at, Math.Min(rng.Next(1, 20), sb.Length - at));
                        break;
                    default:
                        sb.Insert(at, alphabet[rng.Next(alphabet.Length)]);
                        break;
                }
            }

            var text = sb.ToString();
            var isHistogram = i % 2 == 0;
            var run = Task.Run(() =>
            {
                try
                {
                    if (isHistogram)
                    {
                        XEventXmlReader.ReadHistogram(text);
                    }
                    else
                    {
                        XEventXmlReader.ReadRingBuffer(text);
                    }

                    return false;
                }
                catch (XEventXmlException)
                {
                    return true;
                }
            });
            // A hang would be a bug of its own: bound every run.
            var finished = await Task.WhenAny(run, Task.Delay(TimeSpan.FromSeconds(10))) == run;
            Assert.True(finished, $"Mutation {i} did not finish: {text}");
            errors += await run ? 1 : 0;
        }

        Assert.InRange(errors, 200, 2000);
    }
}
