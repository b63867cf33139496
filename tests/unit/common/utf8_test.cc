#include "common/utf8.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace strata {
namespace {

TEST(Utf8Test, WellFormedness) {
  struct Case {
    std::string text;
    bool valid;
  };
  for (const Case& c : std::vector<Case>{
           {"", true},
           {"plain ascii, longer than eight bytes", true},
           {"\xC3\xA9", true},                  // é
           {"\xE2\x82\xAC", true},              // €
           {"\xF0\x9F\x98\x80", true},          // U+1F600
           {"abcdefgh\xE2\x82\xAC", true},      // after an ASCII word
           {"\xC3", false},                     // cut after the lead byte
           {"\xE2\x82", false},                 // cut inside
           {"\xC0\xAF", false},                 // overlong '/'
           {"\xE0\x80\xAF", false},             // overlong
           {"\xED\xA0\x80", false},             // surrogate U+D800
           {"\xF4\x90\x80\x80", false},         // above U+10FFFF
           {"\xFF", false},
           {"abcdefgh\x80", false},             // stray continuation after a word
       }) {
    EXPECT_EQ(IsValidUtf8(c.text), c.valid) << testing::PrintToString(c.text);
    EXPECT_TRUE(IsValidUtf8(ToValidUtf8(c.text))) << testing::PrintToString(c.text);
    if (c.valid) {
      EXPECT_EQ(ToValidUtf8(c.text), c.text);
    }
  }
  EXPECT_EQ(ToValidUtf8("a\xC3" "b"), "a\xEF\xBF\xBD" "b");
}

TEST(Utf8Test, PrefixNeverEndsInsideACharacter) {
  const std::string euros = "\xE2\x82\xAC\xE2\x82\xAC";  // 6 bytes
  EXPECT_EQ(Utf8Prefix(euros, 6), euros);
  EXPECT_EQ(Utf8Prefix(euros, 5), "\xE2\x82\xAC");
  EXPECT_EQ(Utf8Prefix(euros, 4), "\xE2\x82\xAC");
  EXPECT_EQ(Utf8Prefix(euros, 3), "\xE2\x82\xAC");
  EXPECT_EQ(Utf8Prefix(euros, 2), "");
  EXPECT_EQ(Utf8Prefix("abc", 2), "ab");
}

TEST(Utf8Test, EchoInputIsShortAndWellFormed) {
  EXPECT_EQ(EchoInput("name"), "name");
  std::string euros;
  for (int i = 0; i < 86; ++i) euros += "\xE2\x82\xAC";
  const std::string echoed = EchoInput(euros, 40);
  EXPECT_TRUE(IsValidUtf8(echoed));
  EXPECT_EQ(echoed.substr(0, 39), euros.substr(0, 39));  // 13 whole characters
  EXPECT_NE(echoed.find("...(258 bytes)"), std::string::npos) << echoed;
  EXPECT_LT(EchoInput(std::string(1 << 20, 't')).size(), 150u);
}

TEST(Utf8Test, CodePointsCountAndOffsets) {
  const std::string text = "\xC3\xA9\xE2\x82\xACx";  // é€x
  EXPECT_EQ(Utf8Length(text), 3);
  EXPECT_EQ(Utf8Length(""), 0);
  EXPECT_EQ(Utf8Length("\xFF\xFF"), 2);  // ill-formed bytes count one each
  EXPECT_EQ(Utf8Offset(text, 0), 0u);
  EXPECT_EQ(Utf8Offset(text, 1), 2u);
  EXPECT_EQ(Utf8Offset(text, 2), 5u);
  EXPECT_EQ(Utf8Offset(text, 3), 6u);
  EXPECT_EQ(Utf8Offset(text, 10), 6u);
}

// Runs of ASCII are counted a word at a time: every mix of ASCII runs (of every length around
// a word's 8) with multi-byte and ill-formed characters counts and finds as one per character.
TEST(Utf8Test, CodePointsCountTheSameAcrossAsciiRunsOfEveryLength) {
  const std::vector<std::string> others = {"\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xFF"};
  for (size_t run = 0; run <= 20; ++run) {
    for (const std::string& other : others) {
      std::string text;
      std::vector<size_t> starts;  // each character's byte offset
      for (int part = 0; part < 3; ++part) {
        for (size_t i = 0; i < run; ++i) {
          starts.push_back(text.size());
          text += static_cast<char>('a' + i % 26);
        }
        starts.push_back(text.size());
        text += other;
      }
      ASSERT_EQ(Utf8Length(text), static_cast<int64_t>(starts.size())) << run << " " << other;
      for (size_t k = 0; k < starts.size(); ++k) {
        ASSERT_EQ(Utf8Offset(text, static_cast<int64_t>(k)), starts[k]) << run << " " << k;
      }
      EXPECT_EQ(Utf8Offset(text, static_cast<int64_t>(starts.size()) + 5), text.size());
    }
  }
}

TEST(Utf8Test, AsciiIsEveryByteBelow0x80WhereverItStands) {
  EXPECT_TRUE(IsAscii(""));
  EXPECT_TRUE(IsAscii("usage_guest_nice"));
  EXPECT_TRUE(IsAscii(std::string("\x7f\x00", 2)));
  // A high byte at every position of every length to 40: the test reads
  // words, overlapping tails and short strings' bytes by length.
  for (size_t length = 1; length <= 40; ++length) {
    EXPECT_TRUE(IsAscii(std::string(length, '\x7f'))) << length;
    for (size_t at = 0; at < length; ++at) {
      std::string s(length, 'a');
      s[at] = '\x80';
      EXPECT_FALSE(IsAscii(s)) << length << " " << at;
    }
  }
  EXPECT_FALSE(IsAscii("\xC3\xA9"));  // é: valid UTF-8, not ASCII
}

TEST(Utf8Test, CaseMapsEachCodePointAndKeepsIllFormedBytes) {
  struct Case {
    std::string_view in, lower, upper;
  };
  for (const Case& c : std::vector<Case>{
           {"AbC-09", "abc-09", "ABC-09"},
           {"\xC3\x89t\xC3\xA9", "\xC3\xA9t\xC3\xA9", "\xC3\x89T\xC3\x89"},  // Été
           {"\xC3\x9F", "\xC3\x9F", "\xC3\x9F"},      // ß: no one-letter capital
           {"\xC4\xB0", "i", "\xC4\xB0"},             // İ lowers to a shorter i
           {"\xC8\xBA", "\xE2\xB1\xA5", "\xC8\xBA"},  // Ⱥ lowers to a longer ⱥ
           {"\xF0\x90\x90\x80", "\xF0\x90\x90\xA8", "\xF0\x90\x90\x80"},  // Deseret, 4 bytes
           // ill-formed bytes kept (the literal split: "\xFFb" would be one escape, out of range)
           {"A\xFF"
            "b\xC3",
            "a\xFF"
            "b\xC3",
            "A\xFF"
            "B\xC3"},
       }) {
    EXPECT_EQ(Utf8ToLower(c.in), c.lower) << c.in;
    EXPECT_EQ(Utf8ToUpper(c.in), c.upper) << c.in;
  }
}

TEST(Utf8Test, InitCapStartsEachRunOfLettersAndDigits) {
  EXPECT_EQ(Utf8InitCap("hello wORLD-2x"), "Hello World-2x");
  EXPECT_EQ(Utf8InitCap("  o'neil mcDONALD_jr"), "  O'Neil Mcdonald_Jr");
  // été à paris
  EXPECT_EQ(Utf8InitCap("\xC3\xA9T\xC3\x89 \xC3\xA0 paris"), "\xC3\x89t\xC3\xA9 \xC3\x80 Paris");
  EXPECT_EQ(Utf8InitCap("a\xFF"
                        "bc"),
            "A\xFF"
            "Bc");  // an ill-formed byte ends a word
  EXPECT_EQ(Utf8InitCap(""), "");
}

}  // namespace
}  // namespace strata
