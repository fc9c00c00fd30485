using LogFlushMonitor.XEvent.Binary;
using LogFlushMonitor.XEvent.Xml;

namespace LogFlushMonitor.XEvent.Tests;

/// <summary>Target XML in the documented shapes (ring_buffer, histogram, event_data rows), and hostile input.</summary>
public class TargetXmlTests
{
    private const string RingBuffer = """
        <RingBufferTarget truncated="0" processingTime="0" totalEventsProcessed="3" eventCount="3" droppedCount="1" memoryUsed="2048">
          <event name="log_flush_start" package="sqlserver" timestamp="2026-11-22T10:00:01.123Z">
            <data name="database_id"><type name="uint32" package="package0" /><value>5</value></data>
            <data name="write_size"><type name="uint32" package="package0" /><value>61440</value></data>
            <data name="log_block_id"><type name="uint64" package="package0" /><value>18446744073709551615</value></data>
            <action name="database_name" package="sqlserver"><type name="unicode_string" package="package0" /><value><![CDATA[shop <&> db]]></value></action>
            <action name="event_sequence" package="package0"><type name="uint64" package="package0" /><value>41</value></action>
          </event>
          <event name="wait_completed" package="sqlos" timestamp="2026-11-22T10:00:01.5Z">
            <data name="wait_type"><type name="wait_types" package="sqlos" /><value>182</value><text><![CDATA[WRITELOG]]></text></data>
            <data name="duration"><type name="uint64" package="package0" /><value>3</value></data>
            <data name="is_ok"><type name="boolean" package="package0" /><value>true</value></data>
            <data name="delta"><type name="int32" package="package0" /><value>-7</value></data>
            <data name="payload"><type name="binary_data" package="package0" /><value>0A0b00FF</value></data>
            <data name="plan"><type name="xml" package="package0" /><value><ShowPlanXML a="1"><x/></ShowPlanXML></value></data>
            <data name="address"><type name="ptr" package="package0" /><value>0x00007ff61c2b0000</value></data>
            <action name="database_id" package="sqlserver"><type name="uint16" package="package0" /><value>5</value></action>
          </event>
          <event name="log_flush_complete" package="sqlserver" timestamp="2026-11-22T10:00:02Z" />
        </RingBufferTarget>
        """;

    [Fact]
    public void Ring_buffer_xml_reads_typed_events_and_counters()
    {
        var content = XEventXmlReader.ReadRingBuffer(RingBuffer);

        Assert.Equal(3, content.EventCount);
        Assert.Equal(1, content.DroppedCount);
        Assert.Equal(3, content.TotalEventsProcessed);
        Assert.Equal(2048, content.MemoryUsed);
        Assert.Equal(["sqlserver.log_flush_start", "sqlos.wait_completed", "sqlserver.log_flush_complete"], content.Events.Select(e => e.FullName));

        var flush = content.Events[0];
        Assert.Equal(new DateTime(2026, 11, 22, 10, 0, 1, 123, DateTimeKind.Utc), flush.TimestampUtc);
        Assert.Equal(DateTimeKind.Utc, flush.TimestampUtc!.Value.Kind);
        Assert.Equal(5UL, flush.Fields["database_id"]);
        Assert.Equal(61440UL, flush.GetUInt64("write_size"));
        Assert.Equal(ulong.MaxValue, flush.Fields["log_block_id"]);
        Assert.Equal("shop <&> db", flush.Actions["sqlserver.database_name"]);
        Assert.Equal(41UL, flush.GetUInt64("event_sequence"));

        var wait = content.Events[1];
        Assert.Equal(new XEventMapValue(182, "WRITELOG"), wait.Fields["wait_type"]);
        Assert.Equal("WRITELOG", wait.GetString("wait_type"));
        Assert.Equal(true, wait.Fields["is_ok"]);
        Assert.Equal(-7L, wait.Fields["delta"]);
        Assert.Equal(new byte[] { 0x0A, 0x0B, 0x00, 0xFF }, wait.Fields["payload"]);
        Assert.Contains("<ShowPlanXML a=\"1\">", Assert.IsType<string>(wait.Fields["plan"]), StringComparison.Ordinal);
        Assert.Equal(0x00007ff61c2b0000UL, wait.Fields["address"]);
        Assert.Equal(5UL, wait.GetUInt64("sqlserver.database_id"));

        Assert.Empty(content.Events[2].Fields);
    }

    [Fact]
    public void Histogram_xml_reads_slots_and_reports_truncation()
    {
        const string complete = """
            <HistogramTarget truncated="0" buckets="256">
              <Slot count="12031"><value>512</value></Slot>
              <Slot count="57"><value>61440</value></Slot>
              <Slot count="3"><value>1024</value></Slot>
            </HistogramTarget>
            """;
        var h = XEventXmlReader.ReadHistogram(complete);
        Assert.False(h.Truncated);
        Assert.Equal(256, h.Buckets);
        Assert.Equal([new("512", 12031), new("61440", 57), new("1024", 3)], h.Slots);
        Assert.Equal(12091, h.TotalCount);
        Assert.True(h.Slots[1].TryGetInteger(out var size));
        Assert.Equal(61440, size);

        var truncated = XEventXmlReader.ReadHistogram("<HistogramTarget truncated=\"1\" buckets=\"16\"><Slot count=\"9\"><value>WRITELOG</value></Slot></HistogramTarget>");
        Assert.True(truncated.Truncated);
        Assert.False(truncated.Slots[0].TryGetInteger(out _));

        Assert.Empty(XEventXmlReader.ReadHistogram("<HistogramTarget truncated=\"0\" buckets=\"256\" />").Slots);
    }

    [Fact]
    public void Event_data_row_without_types_infers_values()
    {
        const string row = """
            <event name="log_flush_start" package="sqlserver" timestamp="2026-11-22T10:00:01.1234567Z">
              <data name="database_id"><value>7</value></data>
              <data name="write_size"><value>4096</value></data>
              <data name="offset"><value>-12</value></data>
              <data name="wait_type"><value>182</value><text>WRITELOG</text></data>
              <action name="database_name" package="sqlserver"><value>orders</value></action>
            </event>
            """;
        var e = XEventXmlReader.ReadEventData(row);

        Assert.Equal("sqlserver.log_flush_start", e.FullName);
        Assert.Equal(new DateTime(2026, 11, 22, 10, 0, 1, DateTimeKind.Utc).AddTicks(1234567), e.TimestampUtc);
        Assert.Equal(7UL, e.Fields["database_id"]);
        Assert.Equal(4096UL, e.GetUInt64("write_size"));
        Assert.Equal(-12L, e.Fields["offset"]);
        Assert.Equal(new XEventMapValue(182, "WRITELOG"), e.Fields["wait_type"]);
        Assert.Equal("orders", e.GetString("database_name"));
    }

    [Fact]
    public void Xml_with_a_dtd_or_external_entity_is_refused()
    {
        const string xxe = """
            <?xml version="1.0"?>
            <!DOCTYPE RingBufferTarget [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
            <RingBufferTarget><event name="a" package="b"><data name="d"><value>&secret;</value></data></event></RingBufferTarget>
            """;
        var ex = Assert.Throws<XEventXmlException>(() => XEventXmlReader.ReadRingBuffer(xxe, "target_data"));
        Assert.Contains("DTD", ex.Message, StringComparison.Ordinal);
        Assert.Equal("target_data", ex.FileName);
        Assert.DoesNotContain("root:", ex.Message, StringComparison.Ordinal);

        const string laughs = """
            <!DOCTYPE HistogramTarget [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>
            <HistogramTarget truncated="0"><Slot count="1"><value>&b;</value></Slot></HistogramTarget>
            """;
        Assert.Throws<XEventXmlException>(() => XEventXmlReader.ReadHistogram(laughs));
    }

    [Fact]
    public void Xml_beyond_the_size_limit_is_refused()
    {
        var huge = "<RingBufferTarget eventCount=\"1\"><event name=\"" + new string('x', 2_000_000) + "\" package=\"p\"/></RingBufferTarget>";
        var ex = Assert.Throws<XEventXmlException>(() => XEventXmlReader.ReadRingBuffer(huge, maxCharacters: 1_000_000));
        Assert.Contains("too large", ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Xml_with_the_wrong_root_or_broken_markup_is_refused_with_its_position()
    {
        var wrong = Assert.Throws<XEventXmlException>(() => XEventXmlReader.ReadHistogram(RingBuffer));
        Assert.Contains("Expected root element <HistogramTarget>, found <RingBufferTarget>", wrong.Message, StringComparison.Ordinal);

        var cut = RingBuffer[..(RingBuffer.Length / 2)];
        var broken = Assert.Throws<XEventXmlException>(() => XEventXmlReader.ReadRingBuffer(cut));
        Assert.True(broken.Line > 1, $"line {broken.Line}");

        var badCount = Assert.Throws<XEventXmlException>(() => XEventXmlReader.ReadHistogram("<HistogramTarget><Slot count=\"many\"><value>1</value></Slot></HistogramTarget>"));
        Assert.Contains("count='many'", badCount.Message, StringComparison.Ordinal);

        Assert.Throws<XEventXmlException>(() => XEventXmlReader.ReadEventData("<event package=\"x\"/>"));

        // Found by the XML fuzz test: a slot left open around a nested slot once made the reader spin.
        const string nested = "<HistogramTarget truncated=\"0\" buckets=\"256\"><Slot count=\"12031\"><value>512</value>0/Slot><Slot count=\"57\"><value>61440</value></Slot></HistogramTarget>";
        Assert.Throws<XEventXmlException>(() => XEventXmlReader.ReadHistogram(nested));
        Assert.Throws<XEventXmlException>(() => XEventXmlReader.ReadHistogram("<HistogramTarget truncated=\"0\" /><trailing>"));
        Assert.Throws<XEventXmlException>(() => XEventXmlReader.ReadEventData("not xml at all"));
    }
}
