/** The slice of twitter-text (which ships no types) that Herald uses. */
declare module 'twitter-text' {
  interface ParsedTweet {
    weightedLength: number
    valid: boolean
    permillage: number
    validRangeStart: number
    validRangeEnd: number
    displayRangeStart: number
    displayRangeEnd: number
  }
  const twitterText: {
    parseTweet(text: string): ParsedTweet
    extractUrls(text: string): string[]
    /** Links with their UTF-16 offsets in `text` (with `extractUrlsWithoutProtocol: false`, only links with a scheme). */
    extractUrlsWithIndices(
      text: string,
      options?: { extractUrlsWithoutProtocol?: boolean },
    ): { url: string; indices: [number, number] }[]
    extractHashtags(text: string): string[]
    extractMentions(text: string): string[]
  }
  export default twitterText
}
