package spans

import (
	"fmt"
	"io"
)

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

// jaegerDoc is what Jaeger's query API returns and its UI downloads,
// {"data": [trace, …]}, or one trace.
type jaegerDoc struct {
	Data []jaegerTrace `json:"data"`
	jaegerTrace
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
					return fmt.Errorf("span %s names process %q, which the trace does not list", s.SpanID, s.ProcessID)
				}
				sp := span{trace: s.TraceID, id: s.SpanID, parent: ref(s.TraceID, s.ParentSpanID),
					service: p.ServiceName, instance: p.Tags.get("hostname", "ip", "service.instance.id", "host.name"),
					name: s.OperationName, kind: parseKind(s.Tags.get("span.kind")),
					start: int64(s.StartTime) * 1000, end: int64(s.StartTime+s.Duration) * 1000}
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
