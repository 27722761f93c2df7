// BM25 search over topic box text; $query already restricts to one namespace (+ns_key:...^0).
// Parameters: $query (Lucene syntax), $k. Returns: key, uid, score.
CALL db.index.fulltext.queryNodes('box_text', $query, {limit: $k}) YIELD node, score
RETURN node.key AS key, node.uid AS uid, score
