#!/usr/bin/env python3
"""A scheduling queue of the hints and podgroups profiles, in Python, served
over schedq's line protocol (package conformance/remote, version 2), with
v1.38's group rules (G12, G13) and pre-queueing hints (R20-R22, G14).

It is written from the protocol's documentation and the contract's rules
(go doc github.com/schedq/schedq/spec Queue and PodGroupQueue), with the
standard library only: what a queue author in another language writes to
have the conformance suite check a gang scheduler's queue. The names are
the queue's own: activeQ, backoffQ, unschedulablePods, in flight, the
in-flight list, entities, pendingPodGroupPods, incompletePodGroupPods.

It answers invalidConfig to a classic config, so the suite reports the
classic scenarios and random runs n/a for it.

    python3 peer.py                      the queue
    python3 peer.py --broken=split-group a group's last member stays queued
                                         when the group is popped (G3, IG2)
    python3 peer.py --broken=ask-every-member
                                         with v1.38's group rules, PreEnqueue
                                         asks every member of a group, not up
                                         to the first one refused (G12)
    python3 peer.py --broken=update-drops-nomination
                                         an Update that names no node drops
                                         the nomination the queue holds (R18):
                                         no scenario catches it, the hints
                                         random runs do
    python3 peer.py --broken=narrowing-skips-groups
                                         a narrowed move request evaluates
                                         every parked group, named or not (G14)
    python3 peer.py --no-reset           claims no reset: the driver starts a
                                         process per queue (to compare)
"""

import json
import math
import sys
import datetime
import calendar

VERSION = 2
GROUP_RULES_V138 = "v1.38"
SECOND = 10**9

# Places. The last two hold members waiting for their group (G2, G4, G11).
ACTIVE, BACKOFF, UNSCHED, FLIGHT = "activeQ", "backoffQ", "unschedulablePods", "inFlight"
PENDING, INCOMPLETE = "pendingPodGroupPods", "incompletePodGroupPods"

# Strategies, ordered by urgency (R16).
SKIP, AFTER_BACKOFF, IMMEDIATELY = 0, 1, 2

ALL = 65535
UPDATE = 65532
WILDCARD = "*"
FORCE_ACTIVATE = {"resource": WILDCARD, "actionType": ALL, "label": "ForceActivate"}
UNSCHEDULABLE_TIMEOUT = {"resource": WILDCARD, "actionType": ALL, "label": "UnschedulableTimeout"}
ASSIGNED_POD_ADD = {"resource": "AssignedPod", "actionType": 1}


class QueueError(Exception):
    """An operation's error: a code of the protocol and a message."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


# ---------------------------------------------------------------- values

def parse_time(s):
    """RFC 3339 in UTC to integer nanoseconds since the epoch; "" is None,
    the zero time."""
    if not s:
        return None
    if not s.endswith("Z"):
        raise QueueError("protocol", "time %r is not in UTC" % s)
    body = s[:-1]
    frac = 0
    if "." in body:
        body, f = body.split(".", 1)
        frac = int((f + "000000000")[:9])
    d = datetime.datetime.strptime(body, "%Y-%m-%dT%H:%M:%S")
    return calendar.timegm(d.timetuple()) * SECOND + frac


def format_time(t):
    if t is None:
        return ""
    sec, ns = divmod(t, SECOND)
    d = datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=sec)
    out = d.strftime("%Y-%m-%dT%H:%M:%S")
    if ns:
        out += ("." + "%09d" % ns).rstrip("0")
    return out + "Z"


def align(t):
    """The start of t's one-second backoff ordering window (R7h)."""
    return t - t % SECOND


def pod_key(pod):
    return pod.get("namespace", "") + "/" + pod.get("name", "")


def group_key(pod):
    g = pod.get("group", "")
    return pod.get("namespace", "") + "/" + g if g else ""


def labels(pod):
    return pod.get("labels") or {}


def validate_pod(pod):
    if pod is None:
        raise QueueError("nilPod", "a nil pod")
    if not pod.get("name"):
        raise QueueError("invalidPod", "pod %s has an empty name" % pod_key(pod))
    if "/" in pod.get("namespace", "") or "/" in pod["name"]:
        raise QueueError("invalidPod", "pod %s has a / in its namespace or name" % pod_key(pod))
    if not pod.get("uid"):
        raise QueueError("invalidPod", "pod %s has an empty uid" % pod_key(pod))


def validate_group(pg):
    if pg is None:
        raise QueueError("invalidPodGroup", "a nil pod group")
    if not pg.get("name") or "/" in pg.get("namespace", "") or "/" in pg["name"]:
        raise QueueError("invalidPodGroup", "pod group %r has an empty name or a /" % pg)


def validate_event(ev):
    if ev is None or not ev.get("resource"):
        raise QueueError("invalidEvent", "event %r has no resource" % ev)
    a = ev.get("actionType", 0)
    if a == 0 or a & ~ALL:
        raise QueueError("invalidEvent", "event %r has no action or unknown action bits" % ev)


def is_wildcard(ev):
    return ev.get("resource") == WILDCARD and ev.get("actionType") == ALL


# v1.37's order of the action bits: an incoming event broader than a
# registration does not match it (HintsMatch).
_V137 = [(1, 1), (2, 2), (4, 4), (8, 8), (16, 16), (32, 32), (64, 64), (16384, 128), (32768, 256),
         (128, 512), (256, 1024), (8192, 2048), (512, 4096), (1024, 8192), (2048, 16384),
         (4096, (1 << 15) - 1 & ~3)]


def v137(a):
    out = 0
    for bit, v in _V137:
        if a & bit:
            out |= v
    return out


def hints_match(reg, inc):
    if is_wildcard(reg):
        return True
    r, i = reg.get("resource"), inc.get("resource")
    ra, ia = reg.get("actionType", 0), inc.get("actionType", 0)
    res = r == WILDCARD or r == i or (r == "Pod" and i in ("AssignedPod", "UnschedulablePod", "TargetPod"))
    return res and ra & ia != 0 and v137(ia) <= v137(ra)


def backoff_duration(count, initial, cap):
    if count <= 0 or initial <= 0:
        return 0
    shift = count - 1
    if shift >= 63 or initial > cap >> shift:
        return cap
    return initial << shift


# ---------------------------------------------------------------- standard functions

def _node(obj):
    if not obj or obj.get("type") != "node":
        return None
    return obj.get("value") or {}


def fit_label_hint(pod, occ):
    return labels(pod).get("fit", "") == "label"


def gate_hint(pod, occ):
    new = occ.get("newPod")
    return new is not None and new.get("uid") == pod.get("uid") and labels(new).get("gated", "") != "yes"


def flaky_hint(pod, occ):
    raise ValueError("FlakyHint always fails")


def node_zone_hint(pod, occ):
    node = _node(occ.get("newObject"))
    if node is None:
        raise ValueError("no node object")
    z = labels(pod).get("zone")
    return z is None or (node.get("labels") or {}).get("zone", "") == z


def skip_hint(pod, occ):
    return False


HINTS = {"FitLabelHint": fit_label_hint, "GateHint": gate_hint, "FlakyHint": flaky_hint, "NodeZoneHint": node_zone_hint,
         "SkipHint": skip_hint}

# Pre-queueing hints (R20): a function of the occurrence alone that answers
# a set of pod keys, or None for all pods; raising counts as all pods.
NODE_NAMESPACE = "ns"


def wakes_pre_hint(occ):
    new = occ.get("newPod")
    if new is not None:
        lbls, ns = labels(new), new.get("namespace", "")
    elif occ.get("newObject") is not None:
        node = _node(occ["newObject"])
        if node is None:
            raise ValueError("not a node")
        lbls, ns = node.get("labels") or {}, NODE_NAMESPACE
    else:
        return None
    if "wakes" not in lbls:
        return None
    return {ns + "/" + n for n in lbls["wakes"].split("_") if n}


def gate_pre_hint(occ):
    new = occ.get("newPod")
    return set() if new is None else {pod_key(new)}


def flaky_pre_hint(occ):
    raise ValueError("FlakyPreHint always fails")


PRE_HINTS = {"WakesPreHint": wakes_pre_hint, "GatePreHint": gate_pre_hint, "FlakyPreHint": flaky_pre_hint}


class Narrowing:
    """What the pre-queueing hints answered for one move request (R20):
    the narrowed plugins with the keys each named, and whether some plugin
    asked narrowed nothing."""

    def __init__(self, named, all_pods):
        self.named, self.all_pods = named, all_pods

    def evaluates(self, key):
        """R21."""
        return self.all_pods or any(key in keys for keys in self.named.values())

    def asks(self, plugin, key):
        """R22."""
        return plugin not in self.named or key in self.named[plugin]

    def candidates(self):
        return set().union(*self.named.values()) if self.named else set()
PRE_ENQUEUE = {"GateAdmits": lambda p: labels(p).get("gated", "") != "yes",
               "HoldAdmits": lambda p: labels(p).get("hold", "") != "yes"}


def ev_id(ev):
    return (ev["resource"], ev["actionType"], ev.get("label", ""))


class Config:
    def __init__(self, w):
        self.profile = w.get("profile") or "classic"
        if self.profile not in ("hints", "podgroups"):
            raise QueueError("invalidConfig", "this peer implements the hints and podgroups profiles, not %r" % self.profile)
        # v1.38's group rules (G12, G13): the only word besides absent.
        self.group_rules = w.get("groupRules", "")
        if self.group_rules not in ("", GROUP_RULES_V138):
            raise QueueError("invalidConfig", "groupRules %r: this peer knows %r and v1.37.2's (absent)" % (self.group_rules, GROUP_RULES_V138))
        self.v138 = self.group_rules == GROUP_RULES_V138
        self.initial = w.get("podInitialBackoffNanoseconds", 0)
        self.max = w.get("podMaxBackoffNanoseconds", 0)
        self.max_unsched = w.get("podMaxInUnschedulablePodsNanoseconds", 0)
        errs = []
        if self.initial <= 0:
            errs.append("podInitialBackoffNanoseconds must be positive")
        if self.max < 0 or (self.max and self.max < self.initial):
            errs.append("podMaxBackoffNanoseconds must be 0 or at least the initial backoff")
        if self.max_unsched <= 0:
            errs.append("podMaxInUnschedulablePodsNanoseconds must be positive")
        for f in ("backoffQFlushPeriodNanoseconds", "unschedulablePodsFlushPeriodNanoseconds"):
            if w.get(f, 0) < 10**6:
                errs.append(f + " must be at least 1ms")
        self.plugin_events = w.get("pluginEvents") or {}
        for plugin, evs in self.plugin_events.items():
            for ev in evs:
                if not plugin or not ev.get("resource") or not ev.get("actionType") or ev["actionType"] & ~ALL:
                    errs.append("plugin %r registers a bad event %r" % (plugin, ev))
        self.hints = {}
        for h in w.get("queueingHints") or []:
            if h.get("hint") not in HINTS:
                errs.append("unknown queueing hint %r" % h.get("hint"))
                continue
            ev = h["event"]
            if not any(e["resource"] == ev["resource"] and e["actionType"] == ev["actionType"]
                       for e in self.plugin_events.get(h["plugin"], [])):
                errs.append("hint of %s for an event it does not register" % h["plugin"])
            self.hints[(h["plugin"],) + ev_id(ev)] = HINTS[h["hint"]]
        self.pre_enqueue = {}
        for name, fn in (w.get("preEnqueuePlugins") or {}).items():
            if fn not in PRE_ENQUEUE:
                errs.append("unknown PreEnqueue function %r" % fn)
                continue
            self.pre_enqueue[name] = PRE_ENQUEUE[fn]
        self.pre_queueing = bool(w.get("preQueueing"))
        self.pre_hints = {}
        for h in w.get("preQueueingHints") or []:
            if h.get("hint") not in PRE_HINTS:
                errs.append("unknown pre-queueing hint %r" % h.get("hint"))
                continue
            ev = h["event"]
            if not any(e["resource"] == ev["resource"] and e["actionType"] == ev["actionType"]
                       for e in self.plugin_events.get(h["plugin"], [])):
                errs.append("pre-queueing hint of %s for an event it does not register" % h["plugin"])
            self.pre_hints[(h["plugin"],) + ev_id(ev)] = PRE_HINTS[h["hint"]]
        if self.pre_hints and not self.pre_queueing:
            errs.append("preQueueingHints without preQueueing")
        if errs:
            raise QueueError("invalidConfig", "; ".join(errs))

    def run_pre_enqueue(self, pod, gating):
        """R17: the plugin that refuses the pod, or "". The gating plugin first."""
        fn = self.pre_enqueue.get(gating)
        if fn is not None and not fn(pod):
            return gating
        for name in sorted(self.pre_enqueue):
            if name != gating and not self.pre_enqueue[name](pod):
                return name
        return ""

    def of_interest(self, ev):
        return is_wildcard(ev) or any(hints_match(r, ev) for evs in self.plugin_events.values() for r in evs)

    def gating_event_matches(self, plugin, ev):
        return is_wildcard(ev) or any(hints_match(r, ev) for r in self.plugin_events.get(plugin, []))

    def hint(self, plugin, reg, pod, occ):
        fn = self.hints.get((plugin,) + ev_id(reg))
        if fn is None:
            return True
        try:
            return fn(pod, occ)
        except Exception:
            return True  # a hint that cannot tell answers Queue (R16)

    def narrowing(self, occ):
        """R20: what the pre-queueing hints answer for a move request, or
        None when none are asked (the setting off, a wildcard event, an
        event without objects)."""
        ev = occ["event"]
        if not self.pre_queueing or is_wildcard(ev) or \
                all(occ.get(f) is None for f in ("oldPod", "newPod", "oldObject", "newObject")):
            return None
        named, unnarrowed = {}, set()
        for plugin in sorted(self.plugin_events):
            for reg in self.plugin_events[plugin]:
                if not hints_match(reg, ev):
                    continue
                fn = self.pre_hints.get((plugin,) + ev_id(reg))
                keys = None
                if fn is not None:
                    try:
                        keys = fn(occ)
                    except Exception:
                        keys = None  # could not tell: all pods
                if keys is None:
                    unnarrowed.add(plugin)
                    continue
                named.setdefault(plugin, set()).update(keys)
        for plugin in unnarrowed:
            named.pop(plugin, None)
        return Narrowing(named, bool(unnarrowed))

    def pod_strategy(self, info, occ, n=None):
        """R16 for one pod and one occurrence, asking only the rejectors
        the narrowing n allows (R22)."""
        rejectors = info.rejectors()
        if not rejectors:
            return AFTER_BACKOFF
        ev = occ["event"]
        if is_wildcard(ev):
            new = occ.get("newPod")
            if new is not None and new.get("uid") != info.pod.get("uid"):
                return SKIP
            return AFTER_BACKOFF
        best = SKIP
        for plugin in rejectors:
            if n is not None and not n.asks(plugin, info.key()):
                continue  # a narrowed plugin that did not name the pod: QueueSkip unasked
            for reg in self.plugin_events.get(plugin, []):
                if hints_match(reg, ev) and self.hint(plugin, reg, info.pod, occ):
                    if plugin in info.pending:
                        return IMMEDIATELY
                    best = AFTER_BACKOFF
        return best

    def replay_strategy(self, info, occs):
        if not info.rejectors():
            return AFTER_BACKOFF
        return max([SKIP] + [self.pod_strategy(info, o) for o in occs])

    def backoff_expiry(self, info):
        count = info.errors if info.errors > 0 else info.unsched_count
        d = 0 if self.max == 0 else backoff_duration(count, self.initial, self.max)
        return None if d == 0 else align(info.timestamp + d)

    def is_backing_off(self, info, now):
        exp = self.backoff_expiry(info)
        return exp is not None and exp >= align(now)

    def group_backoff_expiry(self, params, size, now):
        count = params.errors if params.errors > 0 else params.unsched_count
        cap = self.max
        if cap == 0 or count <= 0:
            return None
        if size > 1:
            cap = int(float(cap) * math.sqrt(size))
        d = backoff_duration(count, self.initial, cap)
        return None if d == 0 else align(now + d)


def group_backing_off(expiry, now):
    return expiry is not None and expiry >= align(now)


def member_order(info):
    """MemberOrder (G12): higher priority, more attempts, earlier Timestamp, then the name."""
    ts = info.timestamp if info.timestamp is not None else -1 << 80
    return (-info.pod.get("priority", 0), -info.attempts, ts, info.pod.get("name", ""))


def less(a_prio, a_ts, b_prio, b_ts):
    """Does a come before b in activeQ: higher priority, then earlier Timestamp."""
    if a_prio != b_prio:
        return a_prio > b_prio
    return a_ts < b_ts


def maximal(entries):
    """The keys, sorted, of the entries (key, priority, timestamp) no other precedes."""
    out = []
    for k, p, t in entries:
        if not any(less(p2, t2, p, t) for k2, p2, t2 in entries if k2 != k):
            out.append(k)
    return sorted(out)


# ---------------------------------------------------------------- queued pods

class Info:
    """A queued pod: the pod object as the caller gave it and the queue's fields."""
    __slots__ = ("pod", "timestamp", "attempts", "unsched", "initial", "unsched_count", "errors",
                 "pending", "gating", "flushed")

    def __init__(self, pod, timestamp):
        self.pod, self.timestamp, self.attempts = pod, timestamp, 0
        self.unsched, self.pending = [], []
        self.initial, self.flushed = None, None
        self.unsched_count, self.errors, self.gating = 0, 0, ""

    def copy(self):
        c = Info.__new__(Info)
        for f in Info.__slots__:
            setattr(c, f, getattr(self, f))
        c.unsched, c.pending = list(self.unsched), list(self.pending)
        return c

    def key(self):
        return pod_key(self.pod)

    def rejectors(self):
        return sorted(set(self.unsched) | set(self.pending))

    def encode(self):
        return {"pod": self.pod, "timestamp": format_time(self.timestamp), "attempts": self.attempts,
                "unschedulablePlugins": self.unsched, "initialAttemptTimestamp": format_time(self.initial),
                "unschedulableCount": self.unsched_count, "consecutiveErrorsCount": self.errors,
                "pendingPlugins": self.pending, "gatingPlugin": self.gating, "flushTimestamp": format_time(self.flushed)}

    @staticmethod
    def decode(w):
        if w is None or w.get("pod") is None:
            raise QueueError("nilPod", "a nil info")
        validate_pod(w["pod"])
        if w.get("attempts", 0) < 0:
            raise QueueError("invalidPod", "negative attempts")
        i = Info(w["pod"], parse_time(w.get("timestamp")))
        i.attempts = w.get("attempts", 0)
        i.unsched = sorted(set(w.get("unschedulablePlugins") or []))
        i.initial = parse_time(w.get("initialAttemptTimestamp"))
        i.unsched_count = w.get("unschedulableCount", 0)
        i.errors = w.get("consecutiveErrorsCount", 0)
        i.pending = sorted(set(w.get("pendingPlugins") or []))
        i.gating = w.get("gatingPlugin", "")
        i.flushed = parse_time(w.get("flushTimestamp"))
        return i


class Params:
    """A group entity's own fields (spec.EntityParams)."""
    __slots__ = ("timestamp", "attempts", "initial", "expiry", "unsched_count", "errors", "pending", "gating", "flushed")

    def __init__(self, timestamp=None):
        self.timestamp, self.attempts, self.initial, self.expiry = timestamp, 0, None, None
        self.unsched_count, self.errors, self.pending, self.gating, self.flushed = 0, 0, [], "", None

    def copy(self):
        c = Params.__new__(Params)
        for f in Params.__slots__:
            setattr(c, f, getattr(self, f))
        c.pending = list(self.pending)
        return c

    def encode(self):
        return {"timestamp": format_time(self.timestamp), "attempts": self.attempts,
                "initialAttemptTimestamp": format_time(self.initial), "backoffExpiry": format_time(self.expiry),
                "unschedulableCount": self.unsched_count, "consecutiveErrorsCount": self.errors,
                "pendingPlugins": self.pending, "gatingPlugin": self.gating, "flushTimestamp": format_time(self.flushed)}

    @staticmethod
    def decode(w):
        p = Params(parse_time(w.get("timestamp")))
        p.attempts = w.get("attempts", 0)
        p.initial = parse_time(w.get("initialAttemptTimestamp"))
        p.expiry = parse_time(w.get("backoffExpiry"))
        p.unsched_count = w.get("unschedulableCount", 0)
        p.errors = w.get("consecutiveErrorsCount", 0)
        p.pending = sorted(set(w.get("pendingPlugins") or []))
        p.gating = w.get("gatingPlugin", "")
        p.flushed = parse_time(w.get("flushTimestamp"))
        return p


def count_failure(h, rejected):
    """One failed attempt (R3h, G4, G5): with a rejector the unschedulable
    count grows and the error count starts over; without, the error count grows."""
    if rejected:
        h.unsched_count += 1
        h.errors = 0
    else:
        h.errors += 1
    h.flushed = None


# ---------------------------------------------------------------- the queue

class Queue:
    def __init__(self, cfg, now, broken=""):
        self.cfg, self.now, self.broken = cfg, now, broken
        self.groups_on = cfg.profile == "podgroups"
        self.pods = {}  # key -> [Info, place]
        self.cycle = 0
        self.closed = False
        self.in_flight = []  # ("pod", uid, key) markers and ("event", occurrence) records (R15)
        self.by_node, self.node_of = {}, {}  # the nominator (R18)
        self.objects, self.entities, self.in_cycle = {}, {}, set()  # pod groups: key -> object, key -> [place, Params]

    # -- shared helpers

    def uid_held_elsewhere(self, pod):
        for k, (info, _) in self.pods.items():
            if info.pod.get("uid") == pod.get("uid") and k != pod_key(pod):
                raise QueueError("alreadyQueued", "uid %s of %s is held by %s" % (pod.get("uid"), pod_key(pod), k))

    def unschedulable(self, keep=lambda info: True):
        return sorted(k for k, (i, loc) in self.pods.items() if loc == UNSCHED and keep(i))

    def has_marker(self, uid):
        return any(e[0] == "pod" and e[1] == uid for e in self.in_flight)

    def events_after(self, uid):
        for i, e in enumerate(self.in_flight):
            if e[0] == "pod" and e[1] == uid:
                return [r[1] for r in self.in_flight[i + 1:] if r[0] == "event"]
        return []

    def left_flight(self, uid):
        """R12h: the pod's marker goes, with the records no marker still needs."""
        rest = [e for e in self.in_flight if not (e[0] == "pod" and e[1] == uid)]
        first = next((i for i, e in enumerate(rest) if e[0] == "pod"), None)
        self.in_flight = [] if first is None else rest[first:]

    def record(self, occ):
        if self.in_flight:
            self.in_flight.append(("event", occ))

    def to_active(self, info):
        if info.initial is None:
            info.initial = self.now
        self.pods[info.key()] = [info, ACTIVE]

    def admit(self, info, to):
        """R17 on the way to activeQ or backoffQ: a refused pod waits gated."""
        g = self.cfg.run_pre_enqueue(info.pod, info.gating)
        if g:
            info.gating = g
            info.unsched = sorted(set(info.unsched) | {g})
            self.pods[info.key()] = [info, UNSCHED]
            return
        info.gating = ""
        if to == BACKOFF:
            self.pods[info.key()] = [info, BACKOFF]
        else:
            self.to_active(info)

    def place(self, info, s):
        if s == SKIP:
            self.pods[info.key()] = [info, UNSCHED]
        elif s == AFTER_BACKOFF and self.cfg.is_backing_off(info, self.now):
            self.admit(info, BACKOFF)
        else:
            self.admit(info, ACTIVE)

    def group_of(self, pod):
        if not self.groups_on:
            return ""
        rec = self.pods.get(pod_key(pod))
        if rec is not None and rec[0].pod.get("group"):
            return group_key(rec[0].pod)
        return group_key(pod)

    # -- the nominator (R18)

    def nom_remove(self, uid):
        node = self.node_of.pop(uid, None)
        if node is None:
            return False
        self.by_node[node] = [p for p in self.by_node[node] if p.get("uid") != uid]
        if not self.by_node[node]:
            del self.by_node[node]
        return True

    def nom_add(self, pod, override=False, node=""):
        self.nom_remove(pod.get("uid"))
        if not override:
            node = pod.get("nominatedNodeName", "")
        if not node:
            return
        self.node_of[pod["uid"]] = node
        self.by_node.setdefault(node, []).append(pod)

    def nom_update(self, old, new):
        """R18: an update that names no node on either side keeps the
        nomination the queue holds (one made with override, say)."""
        keeps = not old.get("nominatedNodeName") and not new.get("nominatedNodeName") and old.get("uid") in self.node_of
        if keeps and self.broken != "update-drops-nomination":
            node = self.node_of[old["uid"]]
            self.nom_remove(old["uid"])
            self.nom_add(new, True, node)
            return
        self.nom_remove(old.get("uid"))
        self.nom_add(new)

    def add_nominated_pod(self, pod, mode, node):
        validate_pod(pod)
        if mode not in ("", "noop", "override"):
            raise QueueError("protocol", "addNominatedPod: unknown mode %r" % mode)
        self.nom_add(pod, mode == "override", node)

    def nominated_pods_for_node(self, node):
        out = []
        for p in self.by_node.get(node, []):
            rec = self.pods.get(pod_key(p))
            if rec is not None and rec[0].pod.get("uid") == p.get("uid"):
                p = rec[0].pod
            out.append(p)
        return out

    # -- spec.Queue

    def add(self, pod):
        validate_pod(pod)
        if self.group_of(pod):
            return self.add_member(pod)
        rec = self.pods.get(pod_key(pod))
        if rec is not None and rec[1] in (ACTIVE, FLIGHT):
            raise QueueError("alreadyQueued", "Add of %s, which is in %s" % (pod_key(pod), rec[1]))
        self.uid_held_elsewhere(pod)
        self.nom_add(pod)
        self.admit(Info(pod, self.now), ACTIVE)

    def pod_candidates(self):
        if self.groups_on:
            return [k for k in self.entity_candidates() if not k.startswith("group:")]
        active = [(k, i.pod.get("priority", 0), i.timestamp) for k, (i, loc) in self.pods.items() if loc == ACTIVE]
        if active:
            return maximal(active)
        return self.backoff_candidates([i for i, loc in self.pods.values() if loc == BACKOFF])

    def backoff_candidates(self, infos):
        """R2h with activeQ empty: the first backoffQ pods some plugin
        rejected, by window expiry, then as activeQ orders."""
        elig = [i for i in infos if i.rejectors()]
        never = -1 << 80

        def order(i):
            e = self.cfg.backoff_expiry(i)
            return (never if e is None else e, -i.pod.get("priority", 0), i.timestamp)
        if not elig:
            return []
        first = min(order(i) for i in elig)
        return sorted(i.key() for i in elig if order(i) == first)

    def pop(self):
        """R2: the pod taken, or None when Pop must wait."""
        if self.closed:
            raise QueueError("closed", "the queue is closed")
        c = self.pod_candidates()
        if not c:
            if self.groups_on and self.entity_candidates():
                raise QueueError("groupEntity", "the next entities are pod groups: %s" % self.entity_candidates())
            return None
        return self.pop_pod(c[0])

    def pop_pod(self, key):
        info, _ = self.pods[key]
        info.attempts += 1
        self.in_flight.append(("pod", info.pod["uid"], key))
        self.pods[key] = [info, FLIGHT]
        self.cycle += 1
        return info.copy(), self.cycle

    def add_unschedulable(self, w, cycle):
        info = Info.decode(w)
        key = info.key()
        rec = self.pods.get(key)
        if rec is not None and rec[1] != FLIGHT:
            raise QueueError("alreadyQueued", "pod %s is already present in %s" % (key, rec[1]))
        self.uid_held_elsewhere(info.pod)
        info.timestamp = self.now
        was = rec[0].pod.get("uid") if rec is not None else None
        info.pending = sorted(set(info.pending))
        count_failure(info, bool(info.rejectors()))
        if self.groups_on and info.pod.get("group"):
            self.place_member(info)
        else:
            s = AFTER_BACKOFF
            if self.has_marker(info.pod["uid"]):
                s = self.cfg.replay_strategy(info, self.events_after(info.pod["uid"]))
            self.place(info, s)
        if was is not None:
            self.left_flight(was)

    def move_all(self, occ, rejects):
        keys = self.unschedulable(lambda i: rejects is None or i.key() not in rejects)
        self.move(keys, occ)

    def move(self, keys, occ):
        """R4h, and G10 for the entities with a listed member; with the
        pre-queueing setting, only what the pre-queueing hints let through
        is evaluated, asking only the rejectors they allow (R20-R22, G14)."""
        ev = occ["event"]
        if not self.cfg.of_interest(ev):
            return
        n = self.cfg.narrowing(occ)
        alone, groups = [], set()
        for k in keys:
            gk = group_key(self.pods[k][0].pod) if self.groups_on else ""
            if gk:
                groups.add(gk)
            else:
                alone.append(k)
        for gk in sorted(groups):
            ent = self.entities.get(gk)
            if ent is None or ent[0] != UNSCHED or not self.names_group(n, gk):
                continue
            if ent[1].gating and not self.cfg.gating_event_matches(ent[1].gating, ev):
                continue
            self.place_by_strategy(gk, self.entity_strategy(gk, self.members(gk), occ, n))
        for k in sorted(alone):
            if n is not None and not n.evaluates(k):
                continue
            info = self.pods[k][0]
            if info.gating and not self.cfg.gating_event_matches(info.gating, ev):
                continue
            s = self.cfg.pod_strategy(info, occ, n)
            if s != SKIP:
                self.place(info, s)
        self.record(occ)

    def flush_backoff(self):
        for k, (info, loc) in list(self.pods.items()):
            if loc == BACKOFF and not self.group_of(info.pod) and not self.cfg.is_backing_off(info, self.now):
                self.to_active(info)
        for gk in sorted(self.entities):
            place, params = self.entities[gk]
            if place == BACKOFF and not group_backing_off(params.expiry, self.now):
                self.place_entity(gk, self.members(gk), params, ACTIVE)

    def flush_leftover(self):
        def old(ts, flushed):
            if flushed is not None and flushed > ts:
                ts = flushed
            return self.now - ts > self.cfg.max_unsched
        keys = self.unschedulable(lambda i: not (self.groups_on and i.pod.get("group")) and old(i.timestamp, i.flushed))
        for k in keys:
            self.pods[k][0].flushed = self.now
        for gk in sorted(self.entities):
            place, params = self.entities[gk]
            if place == UNSCHED and old(params.timestamp, params.flushed):
                params.flushed = self.now
                keys += self.members(gk)
        if keys:
            self.move(keys, {"event": UNSCHEDULABLE_TIMEOUT})

    def activate(self, pods):
        for p in pods:
            validate_pod(p)
        for p in pods:
            if self.group_of(p):
                self.activate_member(p)
                continue
            rec = self.pods.get(pod_key(p))
            if rec is not None and rec[1] == UNSCHED:
                self.admit(rec[0], ACTIVE)
            elif rec is not None and rec[1] == BACKOFF:
                self.to_active(rec[0])
            else:
                self.activate_other(p)
                continue
            if self.pods[pod_key(p)][1] != ACTIVE:
                self.activate_other(p)

    def activate_other(self, p):
        """R8h for a pod not parked: a ForceActivate record if it is in flight."""
        rec = self.pods.get(pod_key(p))
        if rec is not None and rec[1] == FLIGHT and rec[0].pod.get("uid") == p.get("uid") and self.has_marker(p.get("uid")):
            self.in_flight.append(("event", {"event": FORCE_ACTIVATE, "newPod": p}))

    def update(self, old, new, change=None):
        validate_pod(old)
        validate_pod(new)
        if change is not None:
            for ev in change.get("events") or []:
                validate_event(ev)
        key = pod_key(new)
        if pod_key(old) != key:
            raise QueueError("invalidPod", "Update from %s to %s changes the key" % (pod_key(old), key))
        if self.groups_on:
            rec = self.pods.get(key)
            held = rec[0].pod.get("group", "") if rec is not None else old.get("group", "")
            if old.get("group", "") != new.get("group", "") or held != new.get("group", ""):
                raise QueueError("invalidPod", "Update of %s changes its pod group" % key)
        self.uid_held_elsewhere(new)
        rec = self.pods.get(key)
        if rec is None:
            return self.add(new)
        info, loc = rec
        if loc == FLIGHT and info.pod.get("uid") != new.get("uid"):
            self.nom_remove(info.pod.get("uid"))
            del self.pods[key]
            self.left_flight(info.pod.get("uid"))
            return self.add(new)
        if loc != FLIGHT:
            self.nom_update(old, new)
        info.pod = new
        if change is not None:
            events = change.get("events") or []
        elif labels(old) != labels(new):
            events = [{"resource": "TargetPod", "actionType": 128}]
        else:
            events = [{"resource": "TargetPod", "actionType": UPDATE}]
        if loc == UNSCHED:
            gk = group_key(new) if self.groups_on else ""
            for ev in events:
                occ = {"event": ev, "oldPod": old, "newPod": new}
                if gk:
                    self.place_by_strategy(gk, self.entity_strategy(gk, self.members(gk), occ))
                    if self.entities.get(gk, [UNSCHED])[0] != UNSCHED:
                        return
                else:
                    s = self.cfg.pod_strategy(self.pods[key][0], occ)
                    if s != SKIP:
                        self.place(self.pods[key][0], s)
                    if self.pods[key][1] != UNSCHED:
                        return
        elif loc == FLIGHT:
            for ev in events:
                self.in_flight.append(("event", {"event": ev, "oldPod": old, "newPod": new}))

    def delete(self, pod):
        validate_pod(pod)
        nominated = self.nom_remove(pod.get("uid"))
        key = pod_key(pod)
        rec = self.pods.pop(key, None)
        if rec is None:
            if nominated:
                return
            raise QueueError("podNotFound", "Delete of %s" % key)
        info, loc = rec
        if loc == FLIGHT:
            self.left_flight(info.pod.get("uid"))
        gk = group_key(info.pod) if self.groups_on else ""
        if gk and gk in self.entities and self.entities[gk][0] == loc:
            self.replace_entity(gk)  # G8

    def assigned_pod_added(self, pod):
        validate_pod(pod)
        self.move(self.unschedulable(), {"event": ASSIGNED_POD_ADD, "newPod": pod})

    def assigned_pod_updated(self, old, new, ev):
        validate_pod(new)
        validate_event(ev)
        if old is not None:
            validate_pod(old)
        self.move(self.unschedulable(), {"event": ev, "oldPod": old, "newPod": new})

    def done(self, uid):
        for k, (info, loc) in self.pods.items():
            if loc == FLIGHT and info.pod.get("uid") == uid:
                del self.pods[k]
                self.left_flight(uid)
                return
        raise QueueError("notInFlight", "Done of uid %r" % uid)

    # -- pod groups (G1-G11)

    def members(self, gk):
        return sorted(k for k, (i, loc) in self.pods.items() if loc in (ACTIVE, BACKOFF, UNSCHED) and group_key(i.pod) == gk)

    def waiting(self, gk, where):
        return sorted(k for k, (i, loc) in self.pods.items() if loc == where and group_key(i.pod) == gk)

    def admit_entity(self, gk, keys, params, to):
        """R17 and G2: every member's PreEnqueue runs; the first refused gates
        the entity. G12 (v1.38): the members are asked in MemberOrder and the
        first one refused ends the asking; the others keep their fields."""
        gate = ""
        asked = keys
        if self.cfg.v138:
            asked = sorted(keys, key=lambda k: member_order(self.pods[k][0]))
        for k in asked:
            info = self.pods[k][0]
            g = self.cfg.run_pre_enqueue(info.pod, info.gating)
            if g:
                info.gating = g
                info.unsched = sorted(set(info.unsched) | {g})
                gate = gate or g
            else:
                info.gating = ""
            if gate and self.cfg.v138 and self.broken != "ask-every-member":
                break
        params.gating = gate
        self.place_entity(gk, keys, params, UNSCHED if gate else to)

    def place_entity(self, gk, keys, params, to):
        if to == ACTIVE and params.initial is None:
            params.initial = self.now
        for k in keys:
            info = self.pods[k][0]
            if to == ACTIVE and info.initial is None:
                info.initial = self.now
            self.pods[k][1] = to
        self.entities[gk] = [to, params]

    def replace_entity(self, gk):
        place, params = self.entities[gk]
        keys = self.members(gk)
        if not keys:
            del self.entities[gk]
        elif place == UNSCHED:
            self.place_entity(gk, keys, params, UNSCHED)
        elif place == BACKOFF and group_backing_off(params.expiry, self.now):
            self.admit_entity(gk, keys, params, BACKOFF)
        else:
            self.admit_entity(gk, keys, params, ACTIVE)

    def place_member(self, info):
        gk, key = group_key(info.pod), info.key()
        if gk not in self.objects:
            self.pods[key] = [info, INCOMPLETE]
        elif gk in self.entities:
            self.pods[key] = [info, self.entities[gk][0]]
            self.replace_entity(gk)
        elif gk in self.in_cycle:
            self.pods[key] = [info, PENDING]
        else:
            self.pods[key] = [info, ACTIVE]
            self.admit_entity(gk, [key], Params(self.now), ACTIVE)

    def add_member(self, pod):
        rec = self.pods.get(pod_key(pod))
        if rec is not None:
            raise QueueError("alreadyQueued", "Add of member %s, which is in %s" % (pod_key(pod), rec[1]))
        self.uid_held_elsewhere(pod)
        self.nom_add(pod)
        self.place_member(Info(pod, self.now))

    def entity_candidates(self):
        order = [(k, i.pod.get("priority", 0), i.timestamp) for k, (i, loc) in self.pods.items()
                 if loc == ACTIVE and not i.pod.get("group")]
        order += [("group:" + gk, self.objects[gk].get("priority", 0), params.timestamp)
                  for gk, (place, params) in self.entities.items() if place == ACTIVE]
        if order:
            return maximal(order)
        return self.backoff_candidates([i for i, loc in self.pods.values() if loc == BACKOFF and not i.pod.get("group")])

    def pop_entity(self):
        if self.closed:
            raise QueueError("closed", "the queue is closed")
        c = self.entity_candidates()
        if not c:
            return None
        if not c[0].startswith("group:"):
            info, cycle = self.pop_pod(c[0])
            return {"pod": info.encode()}, cycle
        gk = c[0][len("group:"):]
        params = self.entities.pop(gk)[1]
        params.attempts += 1
        members = self.members(gk)
        if self.broken == "split-group" and len(members) > 1:
            members = members[:-1]  # the last member stays queued: a group partly in flight
            self.entities[gk] = [ACTIVE, params.copy()]
        out = []
        for k in members:
            info = self.pods[k][0]
            info.attempts += 1
            self.in_flight.append(("pod", info.pod["uid"], k))
            self.pods[k][1] = FLIGHT
            out.append(info.encode())
        self.in_cycle.add(gk)
        self.cycle += 1
        group = dict(params.encode(), podGroup=self.objects[gk], members=out)
        return {"group": group}, self.cycle

    def add_attempted_pod_group(self, w, cycle, status):
        if w is None:
            raise QueueError("invalidPodGroup", "a nil groupInfo")
        validate_group(w.get("podGroup"))
        if w.get("attempts", 0) < 0:
            raise QueueError("invalidPodGroup", "negative attempts")
        popped = [Info.decode(m) for m in w.get("members") or []]
        if status not in ("success", "rejected", "error"):
            raise QueueError("invalidPodGroup", "unknown attempt status %r" % status)
        gk = w["podGroup"].get("namespace", "") + "/" + w["podGroup"]["name"]
        if gk in self.entities:
            raise QueueError("alreadyQueued", "pod group %s is already present in %s" % (gk, self.entities[gk][0]))
        self.in_cycle.discard(gk)
        pending = self.waiting(gk, PENDING)
        if not pending:
            return
        if gk not in self.objects:
            for k in pending:
                self.pods[k][1] = INCOMPLETE
            return
        params = Params.decode(w)
        params.pending, params.flushed = [], None
        to = ACTIVE
        if status == "success":
            params.unsched_count, params.errors, params.expiry = 0, 0, None
            uids = {i.pod.get("uid") for i in popped}
            if not any(self.pods[k][0].pod.get("uid") in uids for k in pending):
                params.timestamp = self.now
        else:
            count_failure(params, status == "rejected")
            params.timestamp = self.now
            params.expiry = self.cfg.group_backoff_expiry(params, len(pending), self.now)
            if group_backing_off(params.expiry, self.now):
                to = BACKOFF
        self.admit_entity(gk, pending, params, to)

    def activate_member(self, pod):
        """G7: Activate of a member activates its group's entity."""
        gk = self.group_of(pod)
        if gk not in self.objects:
            return
        if gk in self.entities:
            place, params = self.entities[gk]
            if place == UNSCHED:
                self.admit_entity(gk, self.members(gk), params, ACTIVE)
            elif place == BACKOFF:
                self.place_entity(gk, self.members(gk), params, ACTIVE)
            return
        self.activate_other(pod)

    def names_group(self, n, gk):
        """G14: a narrowed request evaluates a parked group only when some
        plugin named a pod of that group the queue holds."""
        if n is None or n.all_pods or self.broken == "narrowing-skips-groups":
            return True
        return any(k in self.pods and group_key(self.pods[k][0].pod) == gk for k in n.candidates())

    def entity_strategy(self, gk, keys, occ, n=None):
        """G10: the most urgent strategy of the members. G13 (v1.38): a gated
        entity skips its members with no rejectors (PreEnqueue did not reach
        them, G12), unless no member is gated any more: then a skipped member
        makes it at least after backoff."""
        skipping = self.cfg.v138 and bool(self.entities[gk][1].gating)
        best, saw_gated, skipped = SKIP, False, False
        for k in keys:
            info = self.pods[k][0]
            if info.gating:
                saw_gated = True
            if skipping and not info.unsched and not info.pending:
                skipped = True
                continue
            best = max(best, self.cfg.pod_strategy(info, occ, n))
        if skipping and not saw_gated and skipped:
            best = max(best, AFTER_BACKOFF)
        return best

    def place_by_strategy(self, gk, s):
        place, params = self.entities[gk]
        keys = self.members(gk)
        if s == SKIP:
            return
        if s == AFTER_BACKOFF and group_backing_off(params.expiry, self.now):
            self.admit_entity(gk, keys, params, BACKOFF)
        else:
            self.admit_entity(gk, keys, params, ACTIVE)

    def add_pod_group(self, pg):
        validate_group(pg)
        gk = pg.get("namespace", "") + "/" + pg["name"]
        if gk in self.objects:
            raise QueueError("podGroupExists", "AddPodGroup of %s" % gk)
        self.objects[gk] = pg
        for k in self.waiting(gk, INCOMPLETE):
            self.place_member(self.pods[k][0])

    def update_pod_group(self, old, new):
        validate_group(old)
        validate_group(new)
        gk = new.get("namespace", "") + "/" + new["name"]
        if old.get("namespace", "") + "/" + old["name"] != gk:
            raise QueueError("invalidPodGroup", "UpdatePodGroup changes the key")
        if gk not in self.objects:
            raise QueueError("podGroupNotFound", "UpdatePodGroup of %s" % gk)
        self.objects[gk] = new

    def delete_pod_group(self, pg):
        validate_group(pg)
        gk = pg.get("namespace", "") + "/" + pg["name"]
        if gk not in self.objects:
            raise QueueError("podGroupNotFound", "DeletePodGroup of %s" % gk)
        del self.objects[gk]
        for k in self.members(gk) + self.waiting(gk, PENDING):
            self.pods[k][1] = INCOMPLETE
        self.entities.pop(gk, None)

    # -- observation

    def snapshot(self):
        places = {ACTIVE: [], BACKOFF: [], UNSCHED: [], FLIGHT: [], PENDING: [], INCOMPLETE: []}
        for k in sorted(self.pods):
            info, loc = self.pods[k]
            places[loc].append(info.encode())
        s = {"now": format_time(self.now), "activeQ": places[ACTIVE], "backoffQ": places[BACKOFF],
             "unschedulablePods": places[UNSCHED], "inFlight": places[FLIGHT],
             "schedulingCycle": self.cycle, "moveRequestCycle": -1, "closed": self.closed,
             "inFlightEvents": [{"uid": e[1], "key": e[2]} if e[0] == "pod" else dict(e[1]) for e in self.in_flight]}
        if self.groups_on:
            s["podGroups"] = {
                "podGroups": [self.objects[k] for k in sorted(self.objects)],
                "entities": [dict(self.entities[k][1].encode(), group=k, place=self.entities[k][0], members=self.members(k))
                             for k in sorted(self.entities)],
                "inCycle": sorted(self.in_cycle),
                "pendingPodGroupPods": places[PENDING], "incompletePodGroupPods": places[INCOMPLETE]}
        return s


# ---------------------------------------------------------------- the protocol loop

PROFILE = {"name": "python-podgroups-peer",
           "description": "a Python queue of the hints and podgroups profiles (conformance/remote/testdata/pypeer)",
           "blocking": True,
           "observes": {"moveRequestCycle": True, "podInfo": True, "closed": True, "inFlightEvents": True, "hintCounts": True},
           "nominator": True, "reset": True}


class Server:
    def __init__(self, out, broken, resets=True):
        self.out, self.broken, self.resets = out, broken, resets
        self.q = None
        self.waiting = []  # pops that found nothing to take, in arrival order: (id, op)

    def reply(self, r):
        self.out.write(json.dumps(r, separators=(",", ":")) + "\n")
        self.out.flush()

    def try_pop(self, rid, op):
        """Answers a pop and returns True, or returns False if it must wait."""
        try:
            got = self.q.pop() if op == "pop" else self.q.pop_entity()
        except QueueError as e:
            self.reply({"id": rid, "error": {"code": e.code, "message": e.message}})
            return True
        if got is None:
            return False
        if op == "pop":
            info, cycle = got
            self.reply({"id": rid, "info": info.encode(), "cycle": cycle})
        else:
            entity, cycle = got
            self.reply({"id": rid, "entity": entity, "cycle": cycle})
        return True

    def wake(self):
        while self.waiting and self.try_pop(*self.waiting[0]):
            self.waiting.pop(0)

    def handle(self, req):
        rid, op = req.get("id", 0), req.get("op")
        if op == "init":
            if self.q is not None:
                raise QueueError("protocol", "init: the queue exists already")
            if req.get("version") != VERSION:
                raise QueueError("protocol", "init: this peer speaks protocol version %d, the driver asked for %r" % (VERSION, req.get("version")))
            cfg = Config(req.get("config") or {})
            self.q = Queue(cfg, parse_time(req.get("now")), self.broken)
            profile = dict(PROFILE, reset=self.resets)
            if cfg.group_rules:
                profile["groupRules"] = cfg.group_rules  # the peer applies them
            if cfg.pre_queueing:
                profile["preQueueing"] = True
            return {"id": rid, "profile": profile, "version": VERSION}
        q = self.q
        if q is None:
            raise QueueError("protocol", "%s before a successful init" % op)
        r = {"id": rid}
        if op in ("pop", "popEntity"):
            if op == "popEntity" and not q.groups_on:
                raise QueueError("invalidConfig", "popEntity outside the podgroups profile")
            if self.waiting or not self.try_pop(rid, op):
                self.waiting.append((rid, op))
            return None
        elif op == "add":
            q.add(req.get("pod"))
        elif op == "addUnschedulable":
            q.add_unschedulable(req.get("info"), req.get("cycle", 0))
        elif op == "moveAll":
            rejects = req.get("preCheckRejects")
            q.move_all({"event": req.get("event") or {}}, None if rejects is None else set(rejects))
        elif op == "moveAllWithObjects":
            ev = req.get("event")
            validate_event(ev)
            occ = {"event": ev}
            for f in ("oldPod", "newPod", "oldObject", "newObject"):
                if req.get(f) is not None:
                    occ[f] = req[f]
            rejects = req.get("preCheckRejects")
            q.move_all(occ, None if rejects is None else set(rejects))
        elif op == "flushBackoffQ":
            q.flush_backoff()
        elif op == "flushLeftover":
            q.flush_leftover()
        elif op == "activate":
            q.activate(req.get("pods") or [])
        elif op == "update":
            q.update(req.get("oldPod"), req.get("newPod"), req.get("change"))
        elif op == "delete":
            q.delete(req.get("pod"))
        elif op == "assignedPodAdded":
            q.assigned_pod_added(req.get("pod"))
        elif op == "assignedPodUpdated":
            q.assigned_pod_updated(req.get("oldPod"), req.get("newPod"), req.get("event"))
        elif op == "done":
            q.done(req.get("uid", ""))
        elif op == "close":
            q.closed = True
        elif op == "reset":  # the queue ends (waiting pops answered closed first); the next request is init
            q.closed = True
            self.wake()
            self.q = None
        elif op == "schedulingCycle":
            r["cycle"] = q.cycle
        elif op == "snapshot":
            r["snapshot"] = q.snapshot()
        elif op == "step":
            if req.get("nanoseconds", 0) < 0:
                raise QueueError("protocol", "step: negative duration")
            q.now += req.get("nanoseconds", 0)
        elif op == "addNominatedPod":
            q.add_nominated_pod(req.get("pod"), req.get("mode", ""), req.get("nodeName", ""))
        elif op == "nominatedPodsForNode":
            r["pods"] = q.nominated_pods_for_node(req.get("nodeName", ""))
        elif op in ("addAttemptedPodGroup", "addPodGroup", "updatePodGroup", "deletePodGroup"):
            if not q.groups_on:
                raise QueueError("invalidConfig", "%s outside the podgroups profile" % op)
            if op == "addAttemptedPodGroup":
                q.add_attempted_pod_group(req.get("groupInfo"), req.get("cycle", 0), req.get("status", ""))
            elif op == "addPodGroup":
                q.add_pod_group(req.get("podGroup"))
            elif op == "updatePodGroup":
                q.update_pod_group(req.get("oldPodGroup"), req.get("newPodGroup"))
            else:
                q.delete_pod_group(req.get("podGroup"))
        else:
            raise QueueError("protocol", "unknown op %r" % op)
        return r

    def serve(self, lines):
        for line in lines:
            if not line.strip():
                continue
            try:
                req = json.loads(line)
            except ValueError as e:
                self.reply({"id": 0, "error": {"code": "protocol", "message": "not a request: %s" % e}})
                continue
            try:
                r = self.handle(req)
            except QueueError as e:
                r = {"id": req.get("id", 0), "error": {"code": e.code, "message": e.message}}
            if r is not None:
                self.reply(r)
            if self.q is not None:
                self.wake()
        if self.q is not None:  # the end of input closes the queue: waiting pops end
            self.q.closed = True
            self.wake()


# The broken variants, each a bug the suite must catch (pypeer_test.go).
BROKEN = {"split-group", "ask-every-member", "update-drops-nomination", "narrowing-skips-groups"}


def main(argv):
    broken, resets = "", True
    for a in argv[1:]:
        if a == "--no-reset":
            resets = False
        elif a.startswith("--broken="):
            broken = a[len("--broken="):]
            if broken not in BROKEN:
                sys.stderr.write("unknown broken mode %r\n" % broken)
                return 2
        else:
            sys.stderr.write("usage: peer.py [--broken=%s] [--no-reset]\n" % "|".join(sorted(BROKEN)))
            return 2
    Server(sys.stdout, broken, resets).serve(sys.stdin)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
