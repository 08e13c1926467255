package spans

import (
	"io"

	"github.com/goccy/go-json"
)

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

type otlpScope struct {
	Spans []struct {
		TraceID      string            `json:"traceId"`
		SpanID       string            `json:"spanId"`
		ParentSpanID string            `json:"parentSpanId"`
		Name         string            `json:"name"`
		Kind         kindValue         `json:"kind"`
		Start        number            `json:"startTimeUnixNano"`
		End          number            `json:"endTimeUnixNano"`
		Links        []json.RawMessage `json:"links"`
	} `json:"spans"`
}

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

// readOTLP reads OTLP/JSON: the process of a span is its resource's
// service.name (instance: service.instance.id, else host.name).
func readOTLP(r io.Reader, b *builder) error {
	return decodeAll(r, func(d *otlpDoc) error {
		for _, rs := range d.ResourceSpans {
			attrs := rs.Resource.Attributes
			svc, inst := attrs.get("service.name"), attrs.get("service.instance.id", "host.name")
			for _, sc := range append(rs.ScopeSpans, rs.InstrumentationLibrarySpans...) {
				for _, s := range sc.Spans {
					b.add(span{trace: s.TraceID, id: s.SpanID, parent: ref(s.TraceID, s.ParentSpanID),
						service: svc, instance: inst, name: s.Name, kind: kind(s.Kind),
						start: int64(s.Start), end: int64(s.End), links: len(s.Links)})
				}
			}
		}
		return nil
	})
}

// ref is the key of the span id of trace, "" for no span.
func ref(trace, id string) string {
	if id == "" {
		return ""
	}
	return trace + "/" + id
}
