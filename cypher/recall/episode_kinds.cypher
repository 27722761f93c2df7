// The episodes of each of several namespaces, as id and kind: what a bulk writer needs to know before it
// writes a namespace's first batch (is the episode new, how many episodes precede it, is there a dialogue).
// Parameters: $namespaces: [String]. Returns: namespace, episodes: [[uid, kind]] (namespaces without
// episodes are left out).
UNWIND $namespaces AS ns
MATCH (e:Episode {namespace: ns})
USING INDEX SEEK e:Episode(namespace)
RETURN ns AS namespace, collect([e.uid, e.kind]) AS episodes
