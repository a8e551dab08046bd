// grid5.cc - hoplab's own ns-3 cross-check for issue 8 item 8 (proactive routing under load).
//
// 5x5 grid, 200 m spacing (node id = row*5 + col at (200*col, 200*row)), three FTP (TCP bulk)
// flows 0->24, 4->20, 10->14 and one 64 kbit/s CBR/UDP flow 2->22 (512-byte payloads).
// Routing: aodv | olsr | dsdv | static, each with its ns-3.44 defaults.
//
// The radio and MAC follow the settings of the ns-3 peer runs hoplab is compared with (listed here in
// full, so that nothing outside this repository is needed):
// 802.11b DCF at 2 Mbit/s data / 1 Mbit/s control and broadcast, two-ray ground at 914 MHz with
// ns-2's Pt, RXThresh (250 m) and CSThresh (550 m), RTS/CTS above 100 bytes, retry limit 7, one
// 50-packet drop-tail interface queue, pre-filled ARP caches, NewReno with MSS 1460, initial
// cwnd 2, ns-3's delayed ACK and 1 s minimum RTO. This file is written for hoplab; it shares no
// code with the peer.
//
// --rxModel=ns2 (default) approximates ns-2's WirelessPhy: the PHY locks on to any frame above
// CSThresh, keeps it only while SINR >= 10 dB (CPThresh) and fails it at the end if it arrived
// below RXThresh (then EIFS). --rxModel=ns3 uses ns-3's own DSSS error model and decodes frames
// only at or above RXThresh.
//
// Besides goodput per flow it samples, once a second, whether each flow's source has a usable
// route to the destination (from the protocol's own routing-table printout), and reports the
// number of seconds with a route and the time of the first byte delivered.
//
//   make -C validation/ns3 && validation/ns3/grid5 --routing=olsr --seed=1
#include "ns3/aodv-module.h"
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/dsdv-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/olsr-module.h"
#include "ns3/propagation-module.h"
#include "ns3/traffic-control-module.h"
#include "ns3/wifi-module.h"

#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <vector>

using namespace ns3;

namespace
{
// ns-2 WirelessPhy defaults (Pt, RXThresh, CSThresh) and the two-ray antenna height.
constexpr double kPtW = 0.28183815;
constexpr double kRxThreshW = 3.652e-10;
constexpr double kCsThreshW = 1.559e-11;
constexpr double kCpThreshDb = 10.0;

double
Dbm(double watt)
{
    return 10.0 * std::log10(watt) + 30.0;
}
} // namespace

namespace ns3
{
// ns-2 capture: every chunk of a frame survives iff its SINR is at least CPThresh.
class StepCaptureModel : public ErrorRateModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::HoplabStepCaptureModel")
                                .SetParent<ErrorRateModel>()
                                .AddConstructor<StepCaptureModel>();
        return tid;
    }

  private:
    double DoGetChunkSuccessRate(WifiMode, const WifiTxVector&, double sinr, uint64_t bits,
                                 uint8_t, WifiPpduField, uint16_t) const override
    {
        static const double thr = std::pow(10.0, kCpThreshDb / 10.0);
        return (bits == 0 || sinr >= thr) ? 1.0 : 0.0;
    }
};

NS_OBJECT_ENSURE_REGISTERED(StepCaptureModel);

// ns-2 RXThresh: a frame the PHY locked on to below RXThresh is delivered in error.
// The power comes from the PHY's PhyRxBegin trace (one reception at a time).
class BelowRxThreshModel : public ErrorModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::HoplabBelowRxThreshModel")
                                .SetParent<ErrorModel>()
                                .AddConstructor<BelowRxThreshModel>();
        return tid;
    }

    void RxBegin(Ptr<const Packet>, RxPowerWattPerChannelBand bands)
    {
        m_power = 0.0;
        for (const auto& b : bands)
        {
            m_power = std::max(m_power, static_cast<double>(b.second));
        }
    }

  private:
    bool DoCorrupt(Ptr<Packet>) override
    {
        return m_power < kRxThreshW;
    }

    void DoReset() override
    {
    }

    double m_power{0.0};
};

NS_OBJECT_ENSURE_REGISTERED(BelowRxThreshModel);
} // namespace ns3

namespace
{
struct Flow
{
    uint32_t src, dst;
    bool tcp;
    double start;
    Ptr<PacketSink> sink;
    uint16_t port{0};
    double firstRx{-1.0};
    uint32_t refused{0};
    uint32_t routeSeconds{0};
    uint64_t rtos{0};
};

std::vector<Flow> g_flows;
std::string g_routing;
NodeContainer g_nodes;
Ipv4InterfaceContainer g_ifs;
uint64_t g_macRetryDrops = 0;
double g_duration = 60.0;

void
SinkRx(uint32_t i, Ptr<const Packet>, const Address&)
{
    if (g_flows[i].firstRx < 0)
    {
        g_flows[i].firstRx = Simulator::Now().GetSeconds();
    }
}

void
CongState(uint32_t i, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t s)
{
    if (s == TcpSocketState::CA_LOSS)
    {
        g_flows[i].rtos++;
    }
}

// Start (or restart) flow i's bulk sender now. ns-3's TCP refuses to connect when the
// routing protocol has no route at that instant (OLSR before it converges), and
// BulkSendApplication never tries again, where ns-2's and hoplab's TCP drop the first
// packet and retransmit it. So a refused connection is retried every 3 s (ns-3's
// TcpSocket::ConnTimeout, its SYN retransmission interval) until one is accepted.
void
StartBulk(uint32_t i)
{
    Flow& f = g_flows[i];
    BulkSendHelper b("ns3::TcpSocketFactory", InetSocketAddress(g_ifs.GetAddress(f.dst), f.port));
    b.SetAttribute("MaxBytes", UintegerValue(0));
    b.SetAttribute("SendSize", UintegerValue(1460));
    ApplicationContainer ca = b.Install(g_nodes.Get(f.src));
    Ptr<BulkSendApplication> app = DynamicCast<BulkSendApplication>(ca.Get(0));
    app->SetStartTime(Seconds(0));
    app->SetStopTime(Seconds(g_duration) - Simulator::Now());
    // The application starts in an event of its own at this instant; look after it.
    Simulator::Schedule(MicroSeconds(1), [i, app]() {
        Ptr<Socket> s = app->GetSocket();
        if (!s || s->GetErrno() == Socket::ERROR_NOROUTETOHOST)
        {
            g_flows[i].refused++; // that application stays idle: its socket never connected
            Simulator::Schedule(Seconds(3), &StartBulk, i);
            return;
        }
        s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CongState, i));
    });
}

// Whether `src` holds a usable route to `dst`, read from the protocol's table printout: the
// line of the destination's address, without AODV's DOWN/INVALID flags and, for DSDV, with a
// finite hop count (ns-3 DSDV keeps broken routes with hops 255).
bool
HasRoute(uint32_t src, uint32_t dst)
{
    std::ostringstream text;
    Ptr<OutputStreamWrapper> w = Create<OutputStreamWrapper>(&text);
    g_nodes.Get(src)->GetObject<Ipv4>()->GetRoutingProtocol()->PrintRoutingTable(w, Time::S);
    std::ostringstream a;
    g_ifs.GetAddress(dst).Print(a);
    std::istringstream lines(text.str());
    std::string line;
    while (std::getline(lines, line))
    {
        std::istringstream f(line);
        std::string first;
        f >> first;
        if (first != a.str())
        {
            continue;
        }
        if (line.find("DOWN") != std::string::npos || line.find("INVALID") != std::string::npos ||
            line.find("IN_SEARCH") != std::string::npos)
        {
            continue;
        }
        if (g_routing == "dsdv")
        {
            // Destination Gateway Interface HopCount SeqNum LifeTime SettlingTime
            std::string gw, iface;
            uint32_t hops = 0;
            f >> gw >> iface >> hops;
            if (hops >= 255)
            {
                continue;
            }
        }
        return true;
    }
    return false;
}

void
SampleRoutes()
{
    for (auto& f : g_flows)
    {
        f.routeSeconds += HasRoute(f.src, f.dst);
    }
    Simulator::Schedule(Seconds(1), &SampleRoutes);
}

void
MacDrop(WifiMacDropReason r, Ptr<const WifiMpdu>)
{
    g_macRetryDrops += (r == WIFI_MAC_DROP_REACHED_RETRY_LIMIT);
}
} // namespace

int
main(int argc, char* argv[])
{
    std::string routing = "olsr";
    std::string rxModel = "ns2";
    uint32_t seed = 1;
    double duration = 60.0;
    double start = 0.0;
    double stagger = 0.0;
    double cbrKbps = 64.0;
    CommandLine cmd(__FILE__);
    cmd.AddValue("routing", "aodv | olsr | dsdv | static", routing);
    cmd.AddValue("rxModel", "ns2 (ns-2 WirelessPhy reception) | ns3 (stock ns-3)", rxModel);
    cmd.AddValue("seed", "RngSeedManager run number", seed);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("start", "start of the first flow (s)", start);
    cmd.AddValue("stagger", "each further flow starts this much later (s)", stagger);
    cmd.AddValue("cbrKbps", "rate of the CBR flow 2->22 (kbit/s)", cbrKbps);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(routing != "aodv" && routing != "olsr" && routing != "dsdv" && routing != "static",
                    "unknown --routing=" << routing);
    NS_ABORT_MSG_IF(rxModel != "ns2" && rxModel != "ns3", "unknown --rxModel=" << rxModel);
    g_routing = routing;
    g_duration = duration;
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    // TCP as in the peer: NewReno, classic recovery, MSS 1460, cwnd 2, never abort.
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1460));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(1000000));
    Config::SetDefault("ns3::TcpSocket::ConnCount", UintegerValue(1000000));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(false));
    // MAC: RTS/CTS for frames over 100 bytes, retry limit 7, 50-packet drop-tail queue.
    Config::SetDefault("ns3::WifiRemoteStationManager::RtsCtsThreshold", UintegerValue(100));
    Config::SetDefault("ns3::WifiMac::FrameRetryLimit", UintegerValue(7));
    Config::SetDefault("ns3::WifiMacQueue::MaxSize", QueueSizeValue(QueueSize("50p")));
    Config::SetDefault("ns3::WifiMacQueue::MaxDelay", TimeValue(Seconds(1e6)));
    Config::SetDefault("ns3::aodv::RoutingProtocol::GratuitousReply", BooleanValue(false));

    const uint32_t side = 5;
    const double spacing = 200.0;
    g_nodes.Create(side * side);
    Ptr<ListPositionAllocator> pos = CreateObject<ListPositionAllocator>();
    for (uint32_t r = 0; r < side; r++)
    {
        for (uint32_t c = 0; c < side; c++)
        {
            pos->Add(Vector(c * spacing, r * spacing, 0.0));
        }
    }
    MobilityHelper mob;
    mob.SetPositionAllocator(pos);
    mob.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mob.Install(g_nodes);

    // PHY: ns-2 powers and thresholds on a two-ray ground channel.
    YansWifiChannelHelper chan;
    chan.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel");
    chan.AddPropagationLoss("ns3::TwoRayGroundPropagationLossModel", "Frequency",
                            DoubleValue(914e6), "SystemLoss", DoubleValue(1.0), "HeightAboveZ",
                            DoubleValue(1.5));
    YansWifiPhyHelper phy;
    phy.SetChannel(chan.Create());
    phy.Set("TxPowerStart", DoubleValue(Dbm(kPtW)));
    phy.Set("TxPowerEnd", DoubleValue(Dbm(kPtW)));
    phy.Set("TxPowerLevels", UintegerValue(1));
    // The channel discards signals below RxSensitivity + 10log10(22/20) (DSSS width): put
    // that cut-off at CSThresh so that weaker signals neither interfere nor defer, as in ns-2.
    phy.Set("RxSensitivity", DoubleValue(Dbm(kCsThreshW) - 10.0 * std::log10(1.1) - 1e-6));
    phy.Set("CcaSensitivity", DoubleValue(Dbm(kCsThreshW)));
    phy.Set("CcaEdThreshold", DoubleValue(Dbm(kCsThreshW)));
    if (rxModel == "ns3")
    {
        phy.SetPreambleDetectionModel("ns3::ThresholdPreambleDetectionModel", "MinimumRssi",
                                      DoubleValue(Dbm(kRxThreshW)), "Threshold", DoubleValue(4.0));
    }
    else
    {
        phy.SetPreambleDetectionModel("ns3::ThresholdPreambleDetectionModel", "MinimumRssi",
                                      DoubleValue(Dbm(kCsThreshW) - 1e-6), "Threshold",
                                      DoubleValue(-200.0));
        phy.SetErrorRateModel("ns3::HoplabStepCaptureModel");
    }
    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211b);
    wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager", "DataMode",
                                 StringValue("DsssRate2Mbps"), "ControlMode",
                                 StringValue("DsssRate1Mbps"));
    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac", "QosSupported", BooleanValue(false));
    NetDeviceContainer devs = wifi.Install(phy, mac, g_nodes);
    for (uint32_t i = 0; i < devs.GetN(); i++)
    {
        Ptr<WifiNetDevice> d = DynamicCast<WifiNetDevice>(devs.Get(i));
        d->GetMac()->TraceConnectWithoutContext("DroppedMpdu", MakeCallback(&MacDrop));
        if (rxModel == "ns2")
        {
            Ptr<BelowRxThreshModel> em = CreateObject<BelowRxThreshModel>();
            d->GetPhy()->SetPostReceptionErrorModel(em);
            d->GetPhy()->TraceConnectWithoutContext(
                "PhyRxBegin", MakeCallback(&BelowRxThreshModel::RxBegin, em));
        }
    }

    InternetStackHelper stack;
    AodvHelper aodv;
    OlsrHelper olsr;
    DsdvHelper dsdv;
    Ipv4StaticRoutingHelper stat;
    if (routing == "aodv")
    {
        stack.SetRoutingHelper(aodv);
    }
    else if (routing == "olsr")
    {
        stack.SetRoutingHelper(olsr);
    }
    else if (routing == "dsdv")
    {
        stack.SetRoutingHelper(dsdv);
    }
    else
    {
        stack.SetRoutingHelper(stat);
    }
    stack.Install(g_nodes);
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.0.0.0");
    g_ifs = addr.Assign(devs);
    TrafficControlHelper().Uninstall(devs); // the MAC queue is the only interface queue
    NeighborCacheHelper().PopulateNeighborCache();
    if (routing == "static")
    {
        // Shortest paths on the grid: first along the row, then along the column.
        for (uint32_t s = 0; s < side * side; s++)
        {
            Ptr<Ipv4StaticRouting> rt = stat.GetStaticRouting(g_nodes.Get(s)->GetObject<Ipv4>());
            for (uint32_t d = 0; d < side * side; d++)
            {
                if (s == d)
                {
                    continue;
                }
                uint32_t sr = s / side, sc = s % side, dr = d / side, dc = d % side;
                uint32_t nh = sc != dc ? sr * side + (dc > sc ? sc + 1 : sc - 1)
                                       : (dr > sr ? sr + 1 : sr - 1) * side + sc;
                rt->AddHostRouteTo(g_ifs.GetAddress(d), g_ifs.GetAddress(nh), 1);
            }
        }
    }

    // Flows: three FTPs and the CBR, started at `start` + k * `stagger`.
    struct Spec
    {
        uint32_t s, d;
        bool tcp;
    };
    const Spec specs[] = {{0, 24, true}, {4, 20, true}, {10, 14, true}, {2, 22, false}};
    uint16_t port = 5000;
    for (const Spec& sp : specs)
    {
        double t0 = start + stagger * g_flows.size();
        std::string factory = sp.tcp ? "ns3::TcpSocketFactory" : "ns3::UdpSocketFactory";
        PacketSinkHelper sinkH(factory, InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sinkH.Install(g_nodes.Get(sp.d));
        sa.Start(Seconds(0));
        Flow f{sp.s, sp.d, sp.tcp, t0, DynamicCast<PacketSink>(sa.Get(0))};
        f.port = port;
        g_flows.push_back(f);
        uint32_t idx = g_flows.size() - 1;
        f.sink->TraceConnectWithoutContext("Rx", MakeBoundCallback(&SinkRx, idx));
        if (sp.tcp)
        {
            Simulator::Schedule(Seconds(t0), &StartBulk, idx);
        }
        else
        {
            OnOffHelper o("ns3::UdpSocketFactory",
                          InetSocketAddress(g_ifs.GetAddress(sp.d), port));
            o.SetConstantRate(DataRate(uint64_t(cbrKbps * 1000)), 512);
            ApplicationContainer ca = o.Install(g_nodes.Get(sp.s));
            ca.Start(Seconds(t0));
            ca.Stop(Seconds(duration));
        }
        port++;
    }
    Simulator::Schedule(Seconds(1), &SampleRoutes);
    Simulator::Stop(Seconds(duration));
    Simulator::Run();

    std::ostringstream js;
    js << std::fixed << std::setprecision(1);
    js << "{\"sim\":\"ns-3.44\",\"scenario\":\"grid5\",\"routing\":\"" << routing
       << "\",\"rx_model\":\"" << rxModel << "\",\"seed\":" << seed << ",\"duration\":" << duration
       << ",\"start\":" << start << ",\"stagger\":" << stagger
       << ",\"mac_retry_drops\":" << g_macRetryDrops << ",\"flows\":[";
    for (size_t i = 0; i < g_flows.size(); i++)
    {
        const Flow& f = g_flows[i];
        double kbps = f.sink->GetTotalRx() * 8.0 / (duration - f.start) / 1000.0;
        js << (i ? "," : "") << "{\"src\":" << f.src << ",\"dst\":" << f.dst << ",\"kind\":\""
           << (f.tcp ? "ftp" : "cbr") << "\",\"goodput_kbps\":" << kbps
           << ",\"first_rx_s\":" << f.firstRx << ",\"route_seconds\":" << f.routeSeconds
           << ",\"rto\":" << f.rtos << ",\"refused_connects\":" << f.refused << "}";
    }
    js << "]}";
    std::cout << js.str() << std::endl;
    Simulator::Destroy();
    return 0;
}
