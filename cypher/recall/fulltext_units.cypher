// BM25 search over Step/Turn text; $query already restricts to one namespace (+ns_key:...^0).
// Parameters: $query (Lucene syntax), $k, $props: Boolean, $hidden: [String].
// Returns: rows: [[key, uid, score, props (the node's [name, value] pairs without the embedding when $props, else null)]].
// One record whose `rows` list holds the result (one Bolt record per row costs the Python driver more).
CALL db.index.fulltext.queryNodes('unit_text', $query, {limit: $k}) YIELD node, score
RETURN collect([node.key, node.uid, score, CASE WHEN $props THEN [name IN keys(node) WHERE NOT name IN $hidden | [name, node[name]]] END]) AS rows
