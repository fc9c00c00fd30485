using LogFlushMonitor.Core.XEvents;

namespace LogFlushMonitor.Core.Tests.XEvents;

public class StreamClockTests
{
    private static readonly DateTime Server = new(2026, 11, 25, 12, 0, 0, DateTimeKind.Utc);

    [Fact]
    public void The_server_s_now_is_its_newest_event_plus_the_local_time_since_it_arrived_whatever_the_skew()
    {
        var clock = new StreamClock();
        var local = Server.AddMinutes(-7); // our clock is 7 minutes behind the server's
        Assert.Equal(local, clock.Now(local)); // nothing seen yet: the local time

        clock.Observe(Server, local);
        Assert.Equal(Server.AddSeconds(40), clock.Now(local.AddSeconds(40))); // nothing arrived since: it runs on
    }

    [Fact]
    public void A_buffer_with_nothing_newer_does_not_set_the_clock_back_and_a_new_connection_accepts_any_time()
    {
        var clock = new StreamClock();
        var local = Server;
        clock.Observe(Server, local);
        clock.Observe(Server, local.AddSeconds(30)); // waits only, no flush event: the newest flush time did not move
        Assert.Equal(Server.AddSeconds(30), clock.Now(local.AddSeconds(30)));

        clock.Restart(); // the server restarted with its clock set back an hour
        clock.Observe(Server.AddHours(-1), local.AddSeconds(31));
        Assert.Equal(Server.AddHours(-1).AddSeconds(1), clock.Now(local.AddSeconds(32)));
    }
}
