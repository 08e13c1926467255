package spans

import (
	"cmp"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/goccy/go-json"
)

// otlpDoc is an OTLP/JSON ExportTraceServiceRequest (what the collector's
// file exporter writes, one a line, and the SDKs' exporters send).
type otlpDoc struct {
	ResourceSpans []struct {
		Resource struct {
			Attributes otlpAttrs `json:"attributes"`
		} `json:"resource"`
		ScopeSpans []otlpScope `json:"scopeSpans"`
		// InstrumentationLibrarySpans is scopeSpans before OTLP 0.15.
		InstrumentationLibrarySpans []otlpScope `json:"instrumentationLibrarySpans"`
	} `json:"resourceSpans"`
}

type otlpScope struct {
	Spans []struct {
		TraceID      string            `json:"traceId"`
		SpanID       string            `json:"spanId"`
		ParentSpanID string            `json:"parentSpanId"`
		Name         string            `json:"name"`
		Kind         otlpKind          `json:"kind"`
		Start        number            `json:"startTimeUnixNano"`
		End          number            `json:"endTimeUnixNano"`
		Links        []json.RawMessage `json:"links"`
	} `json:"spans"`
}

// otlpAttrs are OTLP key-value attributes; only string values matter
// here.
type otlpAttrs []struct {
	Key   string `json:"key"`
	Value struct {
		StringValue string `json:"stringValue"`
	} `json:"value"`
}

// get returns the first of keys that is set.
func (a otlpAttrs) get(keys ...string) string {
	for _, k := range keys {
		for _, kv := range a {
			if kv.Key == k && kv.Value.StringValue != "" {
				return kv.Value.StringValue
			}
		}
	}
	return ""
}

// otlpKind is a span kind written as an OTLP enum number or name.
type otlpKind string

func (k *otlpKind) UnmarshalJSON(b []byte) error {
	if v, err := strconv.Atoi(string(b)); err == nil {
		*k = otlpKind(kinds[min(max(v, 0), len(kinds)-1)])
	} else {
		*k = otlpKind(parseKind(strings.Trim(string(b), `"`)))
	}
	return nil
}

// readOTLP reads OTLP/JSON: the process of a span is its resource's
// service.name (instance: service.instance.id, else host.name).
func readOTLP(r io.Reader, b *builder) error {
	return decodeAll(r, func(d *otlpDoc) error {
		for _, rs := range d.ResourceSpans {
			attrs := rs.Resource.Attributes
			svc, inst := attrs.get("service.name"), attrs.get("service.instance.id", "host.name")
			for _, sc := range append(rs.ScopeSpans, rs.InstrumentationLibrarySpans...) {
				for _, s := range sc.Spans {
					start, err := nanos(s.SpanID, "startTimeUnixNano", s.Start, 1)
					end, err2 := nanos(s.SpanID, "endTimeUnixNano", s.End, 1)
					if err = cmp.Or(err, err2); err != nil {
						return err
					}
					b.add(span{trace: s.TraceID, id: s.SpanID, parent: ref(s.TraceID, s.ParentSpanID),
						service: svc, instance: inst, name: s.Name, kind: string(s.Kind),
						start: start, end: end, links: len(s.Links)})
				}
			}
		}
		return nil
	})
}

// jaegerDoc is what Jaeger's query API returns and its UI downloads,
// {"data": [trace, …]}, or one trace.
type jaegerDoc struct {
	Data []jaegerTrace `json:"data"`
	jaegerTrace
}

type jaegerTrace struct {
	Spans []struct {
		TraceID       string `json:"traceID"`
		SpanID        string `json:"spanID"`
		ParentSpanID  string `json:"parentSpanID"`
		OperationName string `json:"operationName"`
		References    []struct {
			RefType string `json:"refType"`
			TraceID string `json:"traceID"`
			SpanID  string `json:"spanID"`
		} `json:"references"`
		StartTime number     `json:"startTime"`
		Duration  number     `json:"duration"`
		Tags      jaegerTags `json:"tags"`
		ProcessID string     `json:"processID"`
	} `json:"spans"`
	Processes map[string]struct {
		ServiceName string     `json:"serviceName"`
		Tags        jaegerTags `json:"tags"`
	} `json:"processes"`
}

// jaegerTags are Jaeger's typed key-value tags.
type jaegerTags []struct {
	Key   string `json:"key"`
	Value any    `json:"value"`
}

// get returns the first of keys that is set.
func (t jaegerTags) get(keys ...string) string {
	for _, k := range keys {
		for _, kv := range t {
			if kv.Key == k && kv.Value != nil {
				return fmt.Sprint(kv.Value)
			}
		}
	}
	return ""
}

// readJaeger reads Jaeger JSON: the process of a span is its process's
// serviceName (instance: its hostname, ip or service.instance.id tag);
// the first reference is the parent, the others are counted as links.
func readJaeger(r io.Reader, b *builder) error {
	return decodeAll(r, func(d *jaegerDoc) error {
		for _, t := range append(d.Data, d.jaegerTrace) {
			for _, s := range t.Spans {
				p, ok := t.Processes[s.ProcessID]
				if !ok && s.ProcessID != "" {
					return fmt.Errorf("span %q names process %q, which the trace does not list", s.SpanID, s.ProcessID)
				}
				start, err := nanos(s.SpanID, "startTime", s.StartTime, 1000)
				dur, err2 := nanos(s.SpanID, "duration", s.Duration, 1000)
				if err = cmp.Or(err, err2); err != nil {
					return err
				}
				sp := span{trace: s.TraceID, id: s.SpanID, parent: ref(s.TraceID, s.ParentSpanID),
					service: p.ServiceName, instance: p.Tags.get("hostname", "ip", "service.instance.id", "host.name"),
					name: s.OperationName, kind: parseKind(s.Tags.get("span.kind")), start: start, end: start + dur}
				for k, r := range s.References {
					if k == 0 {
						sp.parent, sp.follows = ref(r.TraceID, r.SpanID), r.RefType == "FOLLOWS_FROM"
					} else {
						sp.links++
					}
				}
				b.add(sp)
			}
		}
		return nil
	})
}

type zipkinSpan struct {
	TraceID       string `json:"traceId"`
	ID            string `json:"id"`
	ParentID      string `json:"parentId"`
	Kind          string `json:"kind"`
	Name          string `json:"name"`
	Timestamp     number `json:"timestamp"`
	Duration      number `json:"duration"`
	LocalEndpoint struct {
		ServiceName string `json:"serviceName"`
		IPv4        string `json:"ipv4"`
		IPv6        string `json:"ipv6"`
		Port        int    `json:"port"`
	} `json:"localEndpoint"`
	Shared bool `json:"shared"`
}

// readZipkin reads Zipkin v2 JSON: an array of spans, or of traces (as
// /api/v2/traces returns them). The process of a span is its local
// endpoint's serviceName (instance: its address and port).
func readZipkin(r io.Reader, b *builder) error {
	return decodeAll(r, func(vs *[]json.RawMessage) error {
		for k, v := range *vs {
			spans := make([]zipkinSpan, 1)
			var err error
			if len(v) > 0 && v[0] == '[' {
				err = json.Unmarshal(v, &spans)
			} else {
				err = json.Unmarshal(v, &spans[0])
			}
			if err != nil {
				return fmt.Errorf("item %d of the array: %s", k+1, strings.TrimPrefix(inWords(err).Error(), "the document "))
			}
			for _, s := range spans {
				ep := s.LocalEndpoint
				inst := ep.IPv4 + ep.IPv6
				if ep.Port != 0 {
					inst += fmt.Sprintf(":%d", ep.Port)
				}
				start, err := nanos(s.ID, "timestamp", s.Timestamp, 1000)
				dur, err2 := nanos(s.ID, "duration", s.Duration, 1000)
				if err = cmp.Or(err, err2); err != nil {
					return err
				}
				b.add(span{trace: s.TraceID, id: s.ID, parent: ref(s.TraceID, s.ParentID),
					service: ep.ServiceName, instance: inst, name: s.Name, kind: parseKind(s.Kind),
					start: start, end: start + dur, shared: s.Shared})
			}
		}
		return nil
	})
}
