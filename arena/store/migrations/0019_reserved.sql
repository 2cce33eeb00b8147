-- Reserved: number 19 is another branch's migration (issue 32, versions). The ladder's
-- is 0020; this file only keeps the numbers without a gap until the two are merged.
SELECT 1;
