package spans

import (
	"fmt"
	"io"

	"github.com/goccy/go-json"
)

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
		for _, v := range *vs {
			var spans []zipkinSpan
			if len(v) > 0 && v[0] == '[' {
				if err := json.Unmarshal(v, &spans); err != nil {
					return err
				}
			} else {
				spans = make([]zipkinSpan, 1)
				if err := json.Unmarshal(v, &spans[0]); err != nil {
					return err
				}
			}
			for _, s := range spans {
				ep := s.LocalEndpoint
				inst := ep.IPv4 + ep.IPv6
				if ep.Port != 0 {
					inst += fmt.Sprintf(":%d", ep.Port)
				}
				b.add(span{trace: s.TraceID, id: s.ID, parent: ref(s.TraceID, s.ParentID),
					service: ep.ServiceName, instance: inst, name: s.Name, kind: parseKind(s.Kind),
					start: int64(s.Timestamp) * 1000, end: int64(s.Timestamp+s.Duration) * 1000, shared: s.Shared})
			}
		}
		return nil
	})
}
