namespace LogFlushMonitor.XEvent.Tests;

public class SmokeTests
{
    [Fact]
    public void Builds() => Assert.True(true);
}
