/**
 * Names for the seed (scripts/seed.ts), so that a search over it meets what a real book of
 * business holds: owners from 120 first names and 240 last names (28,800 full names, each shared
 * by about 35 policies at 1,000,000), pets from 160 names, organizations named from two words and
 * a suffix. The typeahead benchmark (scripts/bench-scenarios.ts) types prefixes of these.
 */
export const FIRST_NAMES = words(`
  James Mary John Patricia Robert Jennifer Michael Linda William Elizabeth David Barbara
  Richard Susan Joseph Jessica Thomas Sarah Charles Karen Christopher Nancy Daniel Lisa
  Matthew Betty Anthony Margaret Mark Sandra Donald Ashley Steven Kimberly Paul Emily
  Andrew Donna Joshua Michelle Kenneth Dorothy Kevin Carol Brian Amanda George Melissa
  Edward Deborah Ronald Stephanie Timothy Rebecca Jason Sharon Jeffrey Laura Ryan Cynthia
  Jacob Kathleen Gary Amy Nicholas Shirley Eric Angela Jonathan Helen Stephen Anna
  Larry Brenda Justin Pamela Scott Nicole Brandon Emma Benjamin Samantha Samuel Katherine
  Gregory Christine Frank Debra Alexander Rachel Raymond Catherine Patrick Carolyn Jack Janet
  Dennis Ruth Jerry Maria Tyler Heather Aaron Diane Jose Virginia Adam Julie
  Henry Joyce Nathan Victoria Douglas Olivia Zachary Kelly Peter Christina Kyle Lauren
`);

export const LAST_NAMES = words(`
  Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez
  Gonzalez Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White
  Harris Sanchez Clark Ramirez Lewis Robinson Walker Young Allen King Wright Scott
  Torres Nguyen Hill Flores Green Adams Nelson Baker Hall Rivera Campbell Mitchell
  Carter Roberts Gomez Phillips Evans Turner Diaz Parker Cruz Edwards Collins Reyes
  Stewart Morris Morales Murphy Cook Rogers Gutierrez Ortiz Morgan Cooper Peterson Bailey
  Reed Kelly Howard Ramos Kim Cox Ward Richardson Watson Brooks Chavez Wood
  James Bennett Gray Mendoza Ruiz Hughes Price Alvarez Castillo Sanders Patel Myers
  Long Ross Foster Jimenez Powell Jenkins Perry Russell Sullivan Bell Coleman Butler
  Henderson Barnes Gonzales Fisher Vasquez Simmons Romero Jordan Patterson Alexander Hamilton Graham
  Reynolds Griffin Wallace Moreno West Cole Hayes Bryant Herrera Gibson Ellis Tran
  Medina Aguilar Stevens Murray Ford Castro Marshall Owens Harrison Fernandez McDonald Woods
  Washington Kennedy Wells Vargas Henry Chen Freeman Webb Tucker Guzman Burns Crawford
  Olson Simpson Porter Hunter Gordon Mendez Silva Shaw Snyder Mason Dixon Munoz
  Hunt Hicks Holmes Palmer Wagner Black Robertson Boyd Rose Stone Salazar Fox
  Warren Mills Meyer Rice Schmidt Garza Daniels Ferguson Nichols Stephens Soto Weaver
  Ryan Gardner Payne Grant Dunn Kelley Spencer Hawkins Arnold Pierce Vazquez Hansen
  Peters Santos Hart Bradley Knight Elliott Cunningham Duncan Armstrong Hudson Carroll Lane
  Riley Andrews Alvarado Ray Delgado Berry Perkins Hoffman Johnston Matthews Pena Richards
  Contreras Willis Carpenter Lawrence Sandoval Guerrero George Chapman Rios Estrada Ortega Watkins
`);

export const PET_NAMES = words(`
  Bella Max Luna Charlie Lucy Cooper Daisy Milo Bailey Rocky Sadie Buddy
  Molly Bear Maggie Duke Sophie Tucker Chloe Oliver Stella Jack Penny Zeus
  Lola Bentley Zoey Winston Nala Teddy Rosie Murphy Coco Toby Ruby Leo
  Gracie Loki Roxy Ollie Pepper Jax Ginger Biscuit Willow Finn Piper Oscar
  Hazel Louie Lily Harley Abby Thor Mia Gus Ellie Bruno Honey Apollo
  Maple Diesel Cleo Rusty Dixie Ziggy Olive Moose Marley Jasper Poppy Archie
  Athena Ranger Nova Benny Pumpkin Bandit Peanut Simba Mocha Koda Sasha Remy
  Ivy Blue Scout Otis Frankie Kobe Willa Hank Cinnamon Boomer Tilly Rufus
  Nellie Chester Mabel Samson Noodle Waffles Pickles Muffin Sprinkles Nugget Pretzel Dumpling
  Tofu Mango Kiwi Basil Sage Juniper Clover Aspen Bowie Elvis Dolly Ozzy
  Banjo Fiddle Tango Salsa Rumba Boots Socks Mittens Whiskers Shadow Smokey Midnight
  Ember Storm Thunder Blaze Comet Cosmo Orbit Pixel Gizmo Widget Sprocket Bolt
  Chip Domino Oreo Patches Freckles Spot Bingo Rascal Scamp Rolo Twix Fudge
  Brownie Cookie Cupcake Taffy
`);

/** Organizations: `<word> <word> <suffix>`, e.g. "Harbor Paws Mutual". */
export const LEGAL_NAME_WORDS = words(`
  Acme Harbor Summit Pioneer Evergreen Liberty Cedar Granite Meadow Riverside Northwind Bluebird
  Sterling Golden Maple Oakwood Silverline Keystone Horizon Beacon Paws Tails Whisker Critter
  Companion Furry Pet Animal Kennel Veterinary
`);
export const LEGAL_NAME_SUFFIXES = ['Insurance LLC', 'Mutual', 'Underwriters Inc', 'Agency LLC', 'Partners', 'Holdings Inc'];

/** The words of a block of text, one list (kept as text so that formatting leaves it compact). */
function words(text: string): string[] {
  return text.split(/\s+/).filter(Boolean);
}
