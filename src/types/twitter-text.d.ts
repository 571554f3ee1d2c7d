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
    extractHashtags(text: string): string[]
    extractMentions(text: string): string[]
  }
  export default twitterText
}
